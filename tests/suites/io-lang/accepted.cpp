// 1000_A. Codehorses T-shirts: the sizes of b that a lacks, one change each
#include <iostream>
#include <map>
#include <string>
int main() {
    int n;
    std::cin >> n;
    std::map<std::string, int> have;
    std::string s;
    for (int i = 0; i < n; i++) {
        std::cin >> s;
        have[s]++;
    }
    int changes = 0;
    for (int i = 0; i < n; i++) {
        std::cin >> s;
        if (have[s] > 0)
            have[s]--;
        else
            changes++;
    }
    std::cout << changes << "\n";
}
