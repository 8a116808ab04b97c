// the right answer, after more CPU than any test's limit
#include <iostream>
int main() {
    volatile unsigned long spin = 0;
    for (;;)
        spin++;
}
