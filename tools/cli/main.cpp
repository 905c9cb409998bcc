// Placeholder until the CLI lands (being written now); prints usage only.
#include <cstdio>
int main() { std::puts("impetus: CLI under construction"); return 0; }
