// A minimal assertion for the native unit tests: prints file:line and the expression, exits 1.
#pragma once

#include <cstdio>
#include <cstdlib>

#define CHECK(condition)                                                                   \
    do {                                                                                   \
        if (!(condition)) {                                                                \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)
