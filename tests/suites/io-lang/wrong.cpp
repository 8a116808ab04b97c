// 1000_A, wrong: counts the positions that differ, not the sizes lacking
#include <iostream>
#include <string>
#include <vector>
int main() {
    int n;
    std::cin >> n;
    std::vector<std::string> a(n);
    for (auto &s : a)
        std::cin >> s;
    int changes = 0;
    for (int i = 0; i < n; i++) {
        std::string s;
        std::cin >> s;
        changes += s != a[i];
    }
    std::cout << changes << "\n";
}
