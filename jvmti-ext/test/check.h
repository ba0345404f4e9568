// A minimal assertion for the native unit tests: prints file:line and the expression, exits 1.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#define CHECK(condition)                                                                   \
    do {                                                                                   \
        if (!(condition)) {                                                                \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

// Runs every test in order (the first failing CHECK exits 1), then prints "name: ok"; main's result.
inline int run_tests(const char* name, std::initializer_list<void (*)()> tests) {
    for (void (*test)() : tests) test();
    std::printf("%s: ok\n", name);
    return 0;
}
