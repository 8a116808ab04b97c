// asks for more memory than the limit: std::bad_alloc, as a judge's memory limit
#include <iostream>
#include <vector>
int main() {
    std::vector<char> v(3ULL << 30, 1);
    std::cout << (int)v[12345] << "\n";
}
