#!/usr/bin/env bash
# Builds the native unit tests in $1 and runs them with CTest: all of them with ASan/UBSan, or
# with --tsan the lock-free structures' tests with ThreadSanitizer.
#   jvmti-ext/test/run-unit-tests.sh [--tsan] BUILD_DIR
set -euo pipefail
for argument in "$@"; do [[ $argument == --help || $argument == -h ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }; done
here="$(cd "$(dirname "$0")/.." && pwd)"
sanitizer=-DSTACKREQ_SANITIZE=ON
if [[ ${1:-} == --tsan ]]; then
    sanitizer=-DSTACKREQ_TSAN=ON
    shift
fi
build="${1:?build directory}"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Debug "$sanitizer" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
cd "$build"
if [[ $sanitizer == -DSTACKREQ_TSAN=ON ]]; then
    # Without address-space randomization: TSan's fixed shadow layout fails ("unexpected memory
    # mapping") on kernels that randomize with more bits than it was built for.
    exec setarch "$(uname -m)" -R ctest --output-on-failure
fi
ctest --output-on-failure
