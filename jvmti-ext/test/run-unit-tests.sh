#!/usr/bin/env bash
# Builds the native unit tests with ASan/UBSan in $1 and runs them with CTest.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:?build directory}"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DSTACKREQ_SANITIZE=ON >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
cd "$build" && ctest --output-on-failure
