// A cheat: it reads its input, then looks for the problem file (whose
// path the test writes below as PROBLEMS) and any fd sbx-run might have
// left open (3..63). Anything found: abort (runtime_error); nothing: a
// wrong answer (wrong_answer), the verdict of a sandbox that kept both out.
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <iostream>
#include <string>
#include <unistd.h>
int main() {
    std::string all, w;
    while (std::cin >> w)
        all += w;
    int fd = open(PROBLEMS, O_RDONLY);
    if (fd >= 0) {
        std::fprintf(stderr, "read the problem file\n");
        std::abort();
    }
    for (int i = 3; i < 64; i++)
        if (fcntl(i, F_GETFD) >= 0) {
            std::fprintf(stderr, "fd %d is open\n", i);
            std::abort();
        }
    std::cout << -1 << "\n";
}
