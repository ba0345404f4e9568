#!/usr/bin/env bash
# Builds libstackreq.so and libstackreq-perf.so for aarch64 Linux into BUILD/native (default
# BUILD: jvmti-ext/target/aarch64, beside Maven's x86_64 build in target/cmake), with the same
# flags as the x86_64 build (CMakeLists.txt), and puts the agent's Java half beside them as the
# x86_64 build does (stackreq-jfr-events.jar: bytecode, the same on every architecture; built
# with Maven when the jfr-events module has not been), so that the folder is all an -agentpath
# user needs. On an x86_64 machine it cross-compiles with
# Debian's g++-aarch64-linux-gnu (cmake/aarch64-linux-gnu.cmake); on an aarch64 machine it is
# the normal build. Installs what is missing through apt (cmake, g++ or the cross g++, and with
# --test qemu-user-static). RelWithDebInfo, as jvmti-ext/pom.xml builds the x86_64 libraries.
#   jvmti-ext/build-aarch64.sh [--test] [BUILD]
# --test also runs the native unit tests that apply to aarch64 with CTest; cross-built, ctest
# runs each under qemu-aarch64-static (-L the cross sysroot, /usr/aarch64-linux-gnu). perf events
# do not exist under qemu's user-mode emulation (perf_event_open is ENOSYS): perf_events_test
# then tests the cpu-timer engine only and says what it skipped.
# JDK headers: $JAVA_HOME, else the first JDK under /usr/lib/jvm (cmake/jdk_headers.cmake).
set -euo pipefail
for argument in "$@"; do [[ $argument == --help || $argument == -h ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }; done
here=$(cd "$(dirname "$0")" && pwd)
test=0
if [[ ${1:-} == --test ]]; then
    test=1
    shift
fi
build=${1:-$here/target/aarch64}

cross=0
[[ $(uname -m) != aarch64 ]] && cross=1
need_packages=()
command -v cmake >/dev/null || need_packages+=(cmake)
if ((cross)); then
    command -v aarch64-linux-gnu-g++ >/dev/null || need_packages+=(g++-aarch64-linux-gnu)
    ((test)) && ! command -v qemu-aarch64-static >/dev/null && need_packages+=(qemu-user-static)
else
    command -v g++ >/dev/null || need_packages+=(g++)
fi
if ((${#need_packages[@]})); then
    echo "build-aarch64.sh: installing ${need_packages[*]} (Debian packages)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_packages[@]}" >/dev/null
fi

configure=(-S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo)
((cross)) && configure+=("-DCMAKE_TOOLCHAIN_FILE=$here/cmake/aarch64-linux-gnu.cmake")
cmake "${configure[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
for library in "$build"/native/libstackreq.so "$build"/native/libstackreq-perf.so; do
    # The proof that it is an aarch64 object: its ELF header's e_machine, 183 (EM_AARCH64).
    machine=$(od -An -t u2 -j 18 -N 2 "$library" | tr -d ' ')
    [[ $machine == 183 ]] || { echo "build-aarch64.sh: $library is not aarch64 (e_machine $machine)" >&2; exit 1; }
    echo "$library"
done
events_jar=$here/../jfr-events/target/stackreq-events.jar
if [[ ! -f $events_jar ]]; then
    (cd "$here/.." && mvn -B -q -ntp -pl jfr-events package -DskipTests >"$build/events-jar.log" 2>&1) ||
        { cat "$build/events-jar.log" >&2; echo "build-aarch64.sh: the events jar (jfr-events) was not built" >&2; exit 1; }
fi
cp "$events_jar" "$build/native/stackreq-jfr-events.jar"
echo "$build/native/stackreq-jfr-events.jar"
if ((test)); then
    (cd "$build" && ctest --output-on-failure)
fi
