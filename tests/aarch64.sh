#!/usr/bin/env bash
# tests/aarch64.sh: stackreq on aarch64 Linux, emulated on an x86_64 machine (or native on an
# aarch64 one). Ten commands:
#
#   tests/aarch64.sh jdk [17|25] [--update]    prints the home of an arm64 JDK 17 (default) or 25,
#                                              fetching it on first use
#   tests/aarch64.sh run [--jdk 17|25] [--walker asgct] [SECONDS]
#                                              the end-to-end check below on one of them (default
#                                              JDK 17, 20 CPU seconds per Workload thread)
#   tests/aarch64.sh native [--jdk 17|25] [SECONDS]
#                                              the native=on check below (default JDK 17, 3 CPU
#                                              seconds per thread)
#   tests/aarch64.sh oracle [--jdk 17|25] [SECONDS]
#                                              the correctness oracle below on one of them (default
#                                              JDK 17, 4 s of wall time per workload)
#   tests/aarch64.sh demo [--jdk 17|25] [SECONDS]
#                                              ./stackreq demo's check below (default JDK 17, 10
#                                              s of BiasTrap)
#   tests/aarch64.sh requests [--jdk 17|25]    the test requester agent's checks below (default
#                                              JDK 17; virtual threads on 25)
#   tests/aarch64.sh null-ucontext [--jdk 17|25] [SECONDS]
#                                              the null-ucontext check below (default JDK 17, 3 s
#                                              of BusyThreads)
#   tests/aarch64.sh continuous [--jdk 17|25] [SECONDS]
#                                              the continuous recording check below (default JDK
#                                              17, frozen 2 s after the dump)
#   tests/aarch64.sh attach [--jdk 17|25] [SECONDS]
#                                              the attach check below (default JDK 17, a profile
#                                              of 8 s)
#   tests/aarch64.sh ci [SECONDS]              what CI runs (tests/run, STACKREQ_AARCH64): the
#                                              cross build once, the native unit tests under qemu
#                                              (jvmti-ext/build-aarch64.sh --test), then run on JDK
#                                              17 and on JDK 25 (default 6 CPU seconds per thread),
#                                              the oracle and the demo on both (4 s per workload,
#                                              10 s of BiasTrap); on JDK 17 only native (3 CPU
#                                              seconds per thread), null-ucontext (3 s), run
#                                              --walker asgct (3 CPU seconds per thread),
#                                              continuous (2 s) and attach (8 s); on JDK 25 only
#                                              requests (with virtual threads); at the end a
#                                              line per failure with why (the check's BROKEN
#                                              lines and its last line), exit 1
#
# jdk: Debian bookworm's openjdk-17-jdk-headless and openjdk-17-jre-headless for arm64, with the
# libraries they need (libc6, libgcc-s1, libstdc++6, zlib1g), or trixie's openjdk-25-jdk-headless
# and openjdk-25-jre-headless with trixie's (the same and libzstd1), downloaded with a private apt
# configuration (the system's sources, lists, architectures and installed packages are left
# alone; tests/debian-jdk.sh, shared with tests/jdk.sh) and unpacked with dpkg -x into
# $STACKREQ_CACHE/jdk17-arm64/<version>/root (jdk25-arm64 for 25), by default /var/cache/stackreq
# as root and ${XDG_CACHE_HOME:-~/.cache}/stackreq otherwise: outside the clone, so CI downloads
# them once per machine (288 MB and 358 MB unpacked; trixie's download is 138 MB). Absolute links
# into the unpacked tree become relative ones. The JDK runs as
#   qemu-aarch64-static -L ROOT ROOT/usr/lib/jvm/java-17-openjdk-arm64/bin/java ...
# (on an aarch64 machine, directly; ROOT's loader is then not needed). Trixie's glibc is newer
# than the cross-built libraries need (they link against bookworm's cross sysroot), so both JDKs
# load the same two libraries.
#
# run: cross-builds libstackreq.so and libstackreq-perf.so (jvmti-ext/build-aarch64.sh, which puts
# the events jar beside them), loads that folder as the build left it, compiles a small Java program with the host's JDK, and runs it
# on the aarch64 JDK with both agents: libstackreq-perf.so's cpu-timer engine (perf_event_open is
# ENOSYS under qemu's user-mode emulation) requests a stack trace every 10 ms of each thread's CPU
# time from the signal's ucontext, stackreq walks it with its own VMStructs walk (walker=vmstructs,
# the default; the check fails when its exit line is missing or it fell back to AsyncGetCallTrace)
# and a JFR recording takes the jdk.StackTraceRequest events. Workload's two threads run for CPU time, not wall time, so the number of requests does
# not depend on how busy the machine is. Then, with the host JDK's jfr: events arrived, each
# sample's userData is the userData of exactly one event, the last statistics event says
# accepted = emitted + dropped with nothing pending and emitted = the events in the file, at
# least 200 stacks have Workload's frames, and at least 99% of those reach their thread's first
# frame (Workload.main or Thread.run). Each step prints its duration and the check its counts.
# --walker asgct: the same with walker=asgct, HotSpot's AsyncGetCallTrace walking (the fallback);
# the check fails when walker=vmstructs was set up.
#
# native: native=on (C frames above the Java ones, unwound from the signal with the libraries'
# .eh_frame rows). tests/src/test/native/native_chain.c is cross-built with -fomit-frame-pointer
# (only the rows can unwind it) and NativeChainWorkload spins in its fixed 4-deep C chain under
# NativeChain.spin on two threads, sampled as in run with native=on; CheckRecording --native-chain
# then wants at least 100 stacks with the chain on top, at least 90% of the stacks in
# NativeChain.spin so, and every one of them exactly the chain's levels, the JNI function (typed
# Native), NativeChain.spin and its Java callers down to the thread's first frame.
#
# oracle: the shadow-stack oracle of tests/validate (io.stackreq.validation.oracle, docs/validation.md)
# on its recursion, inlining and osr workloads: liboracle.so cross-built for aarch64 (the test
# natives' CMakeLists.txt with the cross toolchain), the test classes and their class path from
# Maven (mvn -pl tests -am process-test-classes, which tests/run has already made), and the
# oracle's two JVMs per JDK run by EmulatedOracle on the host's JDK 17 through qemu, which then
# checks the files they wrote with the same checker (OracleCheck, FrameTypeCheck) and the same
# assertions as ValidationTest: per workload and layer, at least 200 signal stacks (1 in the other
# layers), 99.9% of the stacks right, 99.9% of the frame types right (layers b and c). Under qemu
# perf_event_open is ENOSYS, so layer c's signals come from a CPU-time timer (liboracle.so's
# signals=cpu-timer: 1 ms asked, at most one per kernel tick) instead of perf task-clock; layers a
# and b are as on x86_64. On an aarch64 machine it runs natively with perf task-clock signals.
#
# demo: the README's first command, ./stackreq demo, with the CLI on the host's JDK 17 and BiasTrap
# on the arm64 JDK through a wrapper given as --java, both agents cross-built and --engine
# cpu-timer (every 4 ms of CPU time); CheckDemo then wants at least 500 matched samples and
# copyArrays' share of copyArrays + countedLoop in the demo's report (its JSON form) within 3
# points of the share BiasTrap measured. The time is in the arraycopy stubs' copy loop (JDK 17's
# forward_copy_longs, JDK 25's copy_byte_f), a stub the arraycopy stub calls with bl: its walks go
# on through the arraycopy stub's record to copyArrays (docs/platforms.md; before that they
# failed and the split was about 40 points off).
# requests: the x86_64 tests' biased paths and virtual threads with the test requester agent,
# librequester.so, cross-built beside liboracle.so by the oracle's preparation. One JVM with
# libstackreq.so and librequester.so runs tests/aarch64/RequesterScenarios: BiasedRequestsTest's
# scenarios (Scenarios jni-null-ucontext, other-thread and self-loop) and, on JDK 25, VirtualThreads
# with 200 virtual threads (2,000 on an aarch64 machine) on two carriers, each with its report and
# recording; CheckRequests then asserts what those tests do: a NULL ucontext from JNI gives one
# biased event on main with the calling method and main on its stack, a request for another live
# thread one biased event of that thread with its method and not the requester's main, the 1,000
# self-requests each one biased event with the native method on top of selfLoop's calling line;
# each request of a virtual thread (carrier timers with the signal's ucontext, one of its own
# without) is an event of that virtual thread ending at its entry with no carrier frame or is
# marked truncated (frames still frozen), at least 50 timer requests landed in one, and every
# accepted id is exactly one event.
# null-ucontext: null-ucontext=signal, a request with a NULL ucontext from a signal handler walked
# from the moment the signal interrupted, found through the aarch64 signal frame above the handler.
# librequester.so cross-built (the test natives' CMakeLists.txt), its timer handlers requesting
# with a NULL ucontext (its null-ucontext option) every 4 ms of each BusyThreads thread's CPU time
# (two threads spinning in burn), stackreq writing its own recording (file=, no JFR recording);
# CheckNullUcontext then asks, as TimerRequestsTest does on x86_64: every request accepted (at
# least 100), each accepted id's event exactly once, at least 95% of the events walked from the
# signal's context (biased = false; before the signal frame, all fell back to the biased
# safepoint stack) and 95% with a stack, every stack in BusyThreads, and at most 1% of them
# without burn on top.
#
# continuous: a continuous disk recording (-XX:StartFlightRecording, its own repository) of
# MainThreadTarget (tests/src/test/java/.../testapp, compiled by the host's JDK; main and a pool
# thread busy) with both agents as in run (cpu-timer every 4 ms) and stackreq's pending=1500, so
# that JFR starts a new chunk every 1,500 accepted requests. Once the repository holds a second
# chunk, the host's jcmd dumps the recording (JFR.dump, attaching to the JVM under qemu by the
# emulator's pid, which is the JVM's); SECONDS later the JVM is stopped with SIGSTOP, its
# repository copied (what SIGKILL would leave: every thread stopped at one instant) and the JVM
# let go on; then it exits. CheckContinuous: the file written at exit has run's exact accounting,
# every event that did not fail has frames and 200 at least have MainThreadTarget's; the dump and
# the frozen repository's files (but the chunk JFR was writing, which a reader waits for and
# which holds no stackreq event) hold every sample that returned NONE a second or more before the
# dump or the stop (the perf agent's time of the sample), each once and none the file at exit
# lacks, as ContinuousRecordingTest asks on x86_64 of dumps and of a killed JVM's repository; at
# least 100 such samples each.
#
# attach: MainThreadTarget started on the arm64 JDK without agents, profiled by the CLI on the
# host's JDK: stackreq profile --pid PID --agent-dir (the aarch64 libraries) --engine cpu-timer
# -i 4ms --duration SECONDS. CheckAttach reads its report as JSON and wants, as
# AttachMainThreadTest on x86_64: every output written, main and the pool thread each with a
# quarter of the samples at least, methodA, methodB and methodC 90% of the samples and each one's
# share of the three within 3 points of the share of their CPU time the target measured with its
# threads' CPU clocks (from 2 s into the sampling to its end; aarch64_attach says why), from 500
# matched samples at least, no request refused with
# UNATTACHED_THREAD, and every accepted request one event with its sample. MainThreadTarget runs
# units of 20,000,000 iterations here (x86_64: 2,000,000), 10 ticks of the CPU-time timer.
# Installs what is missing through apt (the cross g++, qemu-user-static, maven).
set -euo pipefail
for argument in "$@"; do [[ $argument == --help || $argument == -h ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }; done
repo=$(cd "$(dirname "$0")/.." && pwd)

source "$repo/tests/debian-jdk.sh"

# arm64_jdk FEATURE [--update]: the home of the arm64 JDK 17 (bookworm) or 25 (trixie).
arm64_jdk() {
    case $1 in
        17 | 25) debian_jdk "$(debian_jdk_cache "jdk$1-arm64")" "${2:-}" "arm64_jdk$1_fetch" ;;
        *) echo "tests/aarch64.sh: no arm64 JDK $1 (17 or 25)" >&2; return 2 ;;
    esac
}

arm64_jdk17_fetch() {
    debian_jdk_fetch "$1" tests/aarch64.sh arm64 usr/lib/jvm/java-17-openjdk-arm64 arm64_jdk17_finish \
        openjdk-17-jdk-headless openjdk-17-jre-headless libc6 libgcc-s1 libstdc++6 zlib1g \
        -- "bookworm main" "bookworm-updates main" "bookworm-security main"
}

arm64_jdk17_finish() {
    grep -q '^JAVA_VERSION="17' "$2/release" || { echo "tests/aarch64.sh: $2/release is not JDK 17" >&2; return 2; }
}

arm64_jdk25_fetch() {
    debian_jdk_fetch "$1" tests/aarch64.sh arm64 usr/lib/jvm/java-25-openjdk-arm64 arm64_jdk25_finish \
        openjdk-25-jdk-headless openjdk-25-jre-headless libc6 zlib1g libgcc-s1 libstdc++6 libzstd1 \
        -- "trixie main" "trixie-security main"
}

# Trixie's libc6 puts the loader and the libraries in /usr/lib only (the merged /usr), while
# the JDK's executables ask for /lib/ld-linux-aarch64.so.1; dpkg -x makes no /lib, so the link is
# made here, as a merged-/usr system has it.
arm64_jdk25_finish() {
    local root=$1 jdk=$2
    grep -q '^JAVA_VERSION="25' "$jdk/release" || { echo "tests/aarch64.sh: $jdk/release is not JDK 25" >&2; return 2; }
    [[ -e $root/lib ]] || ln -s usr/lib "$root/lib"
    arm64_java "$jdk" -version >&2 2>&1 || { echo "tests/aarch64.sh: the unpacked arm64 JDK 25 does not run" >&2; return 2; }
}

# arm64_java JDK ARGS...: runs JDK's java, through qemu on a machine that is not aarch64.
# arm64_root JDK: the unpacked Debian tree a fetched arm64 JDK lives in, qemu's -L.
arm64_root() { echo "${1%/usr/lib/jvm/*}"; }

arm64_java() {
    local jdk=$1
    shift
    if [[ $(uname -m) == aarch64 ]]; then
        "$jdk/bin/java" "$@"
    else
        qemu-aarch64-static -L "$(arm64_root "$jdk")" "$jdk/bin/java" "$@"
    fi
}

# What the commands run with and this machine may lack: the cross g++ and cmake (build-aarch64.sh
# installs those), qemu-user-static, and for run maven.
aarch64_tools() {
    local need_packages=()
    [[ ${1:-} == maven ]] && ! command -v mvn >/dev/null && need_packages+=(maven)
    [[ $(uname -m) != aarch64 ]] && ! command -v qemu-aarch64-static >/dev/null && need_packages+=(qemu-user-static)
    if ((${#need_packages[@]})); then
        echo "tests/aarch64.sh: installing ${need_packages[*]} (Debian packages)" >&2
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_packages[@]}" >/dev/null
    fi
}

# What every run needs, made once: both libraries cross-built with the events jar beside them
# (bytecode: the same on every architecture) and Workload compiled by the host's JDK; with TEST=--test the native unit
# tests run too, and their failure is returned as 3 once the rest is made. Sets host_jdk, build,
# work. Each step says when it fails: callers test this function's status, which turns
# set -e off inside it.
aarch64_prepare() {
    local test=${1:-} tested=0 step=$SECONDS
    aarch64_tools maven || return 1
    source "$repo/tests/jdks.sh"
    host_jdk=$(require_jdk 17 tests/aarch64.sh) || return 2
    build=$repo/jvmti-ext/target/aarch64
    work=${STACKREQ_AARCH64_WORK:-$repo/tests/target/aarch64-run}
    JAVA_HOME=$host_jdk "$repo/jvmti-ext/build-aarch64.sh" "$build" >/dev/null ||
        { echo "tests/aarch64.sh: the aarch64 build failed" >&2; return 1; }
    echo "tests/aarch64.sh: aarch64 build: $((SECONDS - step)) s" >&2
    if [[ $test == --test ]]; then
        step=$SECONDS
        # Built above, so this runs the tests only; a failing test leaves the libraries usable.
        JAVA_HOME=$host_jdk "$repo/jvmti-ext/build-aarch64.sh" --test "$build" >"$build/ctest.log" 2>&1 || tested=3
        # ctest's summary, or all of it when a test failed.
        if ((tested)); then cat "$build/ctest.log" >&2; else grep -E 'tests passed|Total Test time' "$build/ctest.log" >&2; fi
        echo "tests/aarch64.sh: native unit tests under qemu: $((SECONDS - step)) s" >&2
    fi
    rm -rf "$work" && mkdir -p "$work" || return 1
    # Every run loads the folder as the build left it: the Java half must be there.
    [[ -f $build/native/stackreq-jfr-events.jar ]] ||
        { echo "tests/aarch64.sh: the aarch64 build left no stackreq-jfr-events.jar beside its libraries" >&2; return 1; }
    "$host_jdk/bin/javac" --release 17 -d "$work/classes" "$repo/tests/aarch64/Workload.java" || return 1
    return $tested
}

# The end-to-end check (see the top) on the arm64 JDK FEATURE with WALKER (vmstructs, the default,
# or asgct), after aarch64_prepare. Work files in WORK/jdkFEATURE (jdkFEATURE-asgct): the
# recording, the samples, both agents' log.
aarch64_run() {
    local feature=$1 seconds=$2 walker=${3:-vmstructs} arm_jdk out=$work/jdk$1 step=$SECONDS
    [[ $walker == asgct ]] && out+=-asgct
    arm_jdk=$(arm64_jdk "$feature") || return 2
    mkdir -p "$out"
    echo "tests/aarch64.sh: running Workload for $seconds s with walker=$walker on $(arm64_java "$arm_jdk" -version 2>&1 | head -1) ($arm_jdk)" >&2
    (cd "$out" && arm64_java "$arm_jdk" \
        "-agentpath:$build/native/libstackreq.so=walker=$walker,log=info" \
        "-agentpath:$build/native/libstackreq-perf.so=engine=cpu-timer,interval=10ms,out=$out/samples.jsonl,log=info" \
        -XX:StartFlightRecording=filename=$out/rec.jfr,+jdk.StackTraceRequest#enabled=true \
        -cp "$work/classes" Workload "$seconds" >"$out/out.txt" 2>"$out/agents.log") ||
        { echo "tests/aarch64.sh: the JVM failed (exit $?; $out/agents.log):" >&2; tail -20 "$out/agents.log" >&2; return 1; }
    grep -E '^\[stackreq\]\[warn\]|requests: requested|^stackreq-perf: [0-9]+ samples' "$out/agents.log" >&2 || true
    # The VMStructs walk must be the one walking: its exit line counts its walks.
    [[ $walker == asgct ]] || grep -E 'walker=vmstructs: [0-9]+ VMStructs walks' "$out/agents.log" >&2 ||
        { echo "tests/aarch64.sh: no line counts walker=vmstructs's walks ($out/agents.log)" >&2; return 1; }
    if grep -q "walker=vmstructs is not available" "$out/agents.log"; then
        echo "tests/aarch64.sh: walker=vmstructs fell back to AsyncGetCallTrace ($out/agents.log)" >&2
        return 1
    fi
    # With walker=asgct AsyncGetCallTrace alone walks: libstackreq names walker=vmstructs only when
    # it sets that walk up.
    if [[ $walker == asgct ]] && grep -q 'walker=vmstructs' "$out/agents.log"; then
        echo "tests/aarch64.sh: walker=asgct, yet walker=vmstructs was set up ($out/agents.log)" >&2
        return 1
    fi
    # The split is checked on both JDKs: on JDK 25 String.hashCode runs in a stub on aarch64 (the
    # vectorized hash code intrinsic), and its walks count only since the stub recovery decodes
    # aarch64's stubs (docs/platforms.md; CheckRecording still takes --split-not-checked).
    "$host_jdk/bin/java" "$repo/tests/aarch64/CheckRecording.java" "$out/rec.jfr" "$out/samples.jsonl" "$out/out.txt" ||
        { echo "tests/aarch64.sh: the recording with walker=$walker on the arm64 JDK $feature broke a rule ($out)" >&2; return 1; }
    echo "tests/aarch64.sh: arm64 JDK $feature, walker=$walker: $((SECONDS - step)) s" >&2
}

# The native=on program, after aarch64_prepare: the chain library cross-built (the host's JDK
# headers: jni.h is the same on every Linux architecture) and its Java classes. Sets native_work.
aarch64_native_prepare() {
    local cc=aarch64-linux-gnu-gcc
    [[ $(uname -m) == aarch64 ]] && cc=gcc
    native_work=$work/native
    mkdir -p "$native_work" || return 1
    "$cc" -O2 -fomit-frame-pointer -shared -fPIC -Wall -Wextra -Werror -I "$host_jdk/include" \
        -I "$host_jdk/include/linux" -o "$native_work/libnativechain_nofp.so" "$repo/tests/src/test/native/native_chain.c" ||
        { echo "tests/aarch64.sh: the chain library was not built" >&2; return 1; }
    "$host_jdk/bin/javac" --release 17 -d "$native_work/classes" "$repo/tests/aarch64/NativeChainWorkload.java" \
        "$repo/tests/src/test/java/io/stackreq/testapp/NativeChain.java" || return 1
}

# The native=on check (see the top) on the arm64 JDK FEATURE, after aarch64_native_prepare. Work
# files in WORK/native/jdkFEATURE.
aarch64_native_run() {
    local feature=$1 seconds=$2 arm_jdk out=$native_work/jdk$1 step=$SECONDS
    arm_jdk=$(arm64_jdk "$feature") || return 2
    mkdir -p "$out"
    echo "tests/aarch64.sh: native=on, the C chain for $seconds s on the arm64 JDK $feature" >&2
    (cd "$out" && arm64_java "$arm_jdk" \
        "-agentpath:$build/native/libstackreq.so=native=on,log=info" \
        "-agentpath:$build/native/libstackreq-perf.so=engine=cpu-timer,interval=10ms,out=$out/samples.jsonl,log=info" \
        -XX:StartFlightRecording=filename=$out/rec.jfr,+jdk.StackTraceRequest#enabled=true \
        -cp "$native_work/classes" io.stackreq.testapp.NativeChainWorkload "$native_work/libnativechain_nofp.so" \
        "$seconds" >"$out/out.txt" 2>"$out/agents.log") ||
        { echo "tests/aarch64.sh: the JVM failed (exit $?; $out/agents.log):" >&2; tail -20 "$out/agents.log" >&2; return 1; }
    "$host_jdk/bin/java" "$repo/tests/aarch64/CheckRecording.java" --native-chain "$out/rec.jfr" libnativechain_nofp.so ||
        { echo "tests/aarch64.sh: native=on on the arm64 JDK $feature broke a rule ($out)" >&2; return 1; }
    echo "tests/aarch64.sh: native=on on the arm64 JDK $feature: $((SECONDS - step)) s" >&2
}

# The oracle's workloads under emulation: deep recursion, inlined frames, on-stack replacement.
# Run in this order because the first one runs while the emulated JIT is still busy with what
# the JVM's start queued (JDK 25 most): recursion first gave 14 JVMTI checks and 2 biased requests
# on the arm64 JDK 25, osr first still 151 and 30 (at least 1 of each is asked for).
oracle_workloads=osr,inlining,recursion
# 4 s: layer c had 683-1,023 signal stacks per workload under qemu (200 asked) and the other
# layers at least 19 (1 asked), arm64 JDK 17 and 25, 2026-11-28 (39 and 83 s; at 6 s 50 and 100 s).
oracle_seconds=4

# aarch64_test_natives LOG TARGET...: the test natives' TARGETs (tests/src/test/native's
# CMakeLists.txt, with the cross toolchain on another machine) built into
# tests/target/aarch64/test-native, each library proved aarch64 as build-aarch64.sh proves its own:
# e_machine 183 (EM_AARCH64). Sets test_natives.
aarch64_test_natives() {
    local log=$1 natives_build=$repo/tests/target/aarch64/test-native-build configure target
    shift
    test_natives=$repo/tests/target/aarch64/test-native
    configure=(-S "$repo/tests/src/test/native" -B "$natives_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
        "-DOUT=$test_natives" "-DSTACKREQ_INCLUDE=$repo/jvmti-ext/include")
    [[ $(uname -m) != aarch64 ]] && configure+=("-DCMAKE_TOOLCHAIN_FILE=$repo/jvmti-ext/cmake/aarch64-linux-gnu.cmake")
    { JAVA_HOME=$host_jdk cmake "${configure[@]}" && cmake --build "$natives_build" -j 2 --target "$@"; } >"$log" 2>&1 ||
        { cat "$log" >&2; echo "tests/aarch64.sh: $* not built for aarch64" >&2; return 1; }
    for target in "$@"; do
        [[ $(od -An -t u2 -j 18 -N 2 "$test_natives/lib$target.so" | tr -d ' ') == 183 ]] ||
            { echo "tests/aarch64.sh: $test_natives/lib$target.so is not aarch64" >&2; return 1; }
    done
}

# The test classes and their class path (Maven, incremental after tests/run), for the checkers
# that share the x86_64 tests' helpers. Sets test_classpath.
aarch64_test_classes_prepare() {
    (cd "$repo" && JAVA_HOME=$host_jdk mvn -B -q -ntp -pl tests -am process-test-classes >"$work/mvn-tests.log" 2>&1) ||
        { tail -40 "$work/mvn-tests.log" >&2; echo "tests/aarch64.sh: the test classes were not built" >&2; return 1; }
    test_classpath=$repo/tests/target/test-classes:$(cat "$repo/tests/target/validation-classpath.txt") || return 1
}

# What the oracle and the requests check need beyond aarch64_prepare: the test classes and
# liboracle.so and librequester.so for aarch64. Sets test_classpath and oracle_natives.
aarch64_oracle_prepare() {
    local step=$SECONDS
    aarch64_test_classes_prepare || return 1
    aarch64_test_natives "$work/oracle-natives.log" oracle requester || return 1
    oracle_natives=$test_natives
    echo "tests/aarch64.sh: oracle's build (test classes, liboracle.so, librequester.so): $((SECONDS - step)) s" >&2
}

# The oracle (see the top) on the arm64 JDK FEATURE, SECONDS of wall time per workload, after
# aarch64_prepare and aarch64_oracle_prepare. Work files in WORK/oracle-jdkFEATURE: each JVM's
# directory (snapshots, JVMTI checks, compiled code, recording, agents' logs), and oracle.txt,
# the table and examples EmulatedOracle printed.
aarch64_oracle() {
    local feature=$1 seconds=$2 arm_jdk out=$work/oracle-jdk$1 step=$SECONDS launch
    arm_jdk=$(arm64_jdk "$feature") || return 2
    if [[ $(uname -m) == aarch64 ]]; then
        launch=(perf 1)
    else
        # Timeouts 3 times x86_64's: a JDK 25 JVM of this run takes about 45 s under qemu, x86_64's
        # timeout for it is 168 s.
        launch=(cpu-timer 3 qemu-aarch64-static -L "$(arm64_root "$arm_jdk")")
        echo "tests/aarch64.sh: oracle under qemu: layer c's signals from CPU-time timers (perf_event_open is ENOSYS)" >&2
    fi
    echo "tests/aarch64.sh: oracle on the arm64 JDK $feature, $oracle_workloads, $seconds s each" >&2
    mkdir -p "$out"
    "$host_jdk/bin/java" "-Dstackreq.root=$repo" "-Dstackreq.native.dir=$build/native" \
        "-Dstackreq.test.native.dir=$oracle_natives" "-Dstackreq.test.classes=$repo/tests/target/test-classes" \
        -cp "$test_classpath" io.stackreq.validation.EmulatedOracle "$arm_jdk" "$out" "$seconds" \
        "$oracle_workloads" "${launch[@]}" >"$out/oracle.txt" ||
        { cat "$out/oracle.txt" >&2; echo "tests/aarch64.sh: the oracle on the arm64 JDK $feature failed ($out)" >&2; return 1; }
    # The table: per workload and layer, the stacks checked, how many right, the frame types.
    grep '^|' "$out/oracle.txt" >&2
    echo "tests/aarch64.sh: oracle on the arm64 JDK $feature: $((SECONDS - step)) s" >&2
}

# The demo (README's first command) on the arm64 JDK FEATURE, after aarch64_prepare: the CLI runs on
# the host's JDK and launches BiasTrap on the arm64 one through a wrapper (--java), with the
# cpu-timer engine. The CLI jar is built here (Maven, analysis). Sets demo_jar.
aarch64_demo_prepare() {
    demo_jar=$repo/analysis/target/stackreq.jar
    mkdir -p "$work/demo" || return 1
    (cd "$repo" && JAVA_HOME=$host_jdk mvn -B -q -ntp -pl analysis package -DskipTests >"$work/demo/mvn.log" 2>&1) ||
        { cat "$work/demo/mvn.log" >&2; echo "tests/aarch64.sh: the CLI jar was not built" >&2; return 1; }
}

# The demo check on the arm64 JDK FEATURE for SECONDS of BiasTrap (wall time), after
# aarch64_demo_prepare: the demo's report (as JSON, from the same recording and samples) against
# the split BiasTrap measured (tests/aarch64/CheckDemo.java). Work files in WORK/demo/jdkFEATURE.
aarch64_demo_run() {
    local feature=$1 seconds=$2 arm_jdk out=$work/demo/jdk$1 step=$SECONDS
    arm_jdk=$(arm64_jdk "$feature") || return 2
    mkdir -p "$out"
    # --java runs one executable: this one runs the arm64 java as arm64_java does.
    if [[ $(uname -m) == aarch64 ]]; then
        printf '#!/bin/sh\nexec "%s/bin/java" "$@"\n' "$arm_jdk" >"$out/java"
    else
        printf '#!/bin/sh\nexec qemu-aarch64-static -L "%s" "%s/bin/java" "$@"\n' "$(arm64_root "$arm_jdk")" "$arm_jdk" >"$out/java"
    fi
    chmod +x "$out/java"
    echo "tests/aarch64.sh: stackreq demo --engine cpu-timer --seconds $seconds on the arm64 JDK $feature" >&2
    "$host_jdk/bin/java" -jar "$demo_jar" demo --java "$out/java" --agent-dir "$build/native" --engine cpu-timer \
        --seconds "$seconds" -o "$out/results" >"$out/demo.txt" 2>&1 ||
        { echo "tests/aarch64.sh: the demo failed (exit $?; $out/demo.txt):" >&2; tail -20 "$out/demo.txt" >&2; return 1; }
    "$host_jdk/bin/java" -jar "$demo_jar" report "$out/results/recording.jfr" --samples "$out/results/samples.jsonl" \
        --format json --top 1000000 >"$out/report.json" ||
        { echo "tests/aarch64.sh: the demo's report as JSON failed ($out)" >&2; return 1; }
    "$host_jdk/bin/java" -cp "$demo_jar" "$repo/tests/aarch64/CheckDemo.java" "$out/report.json" "$out/demo.txt" ||
        { echo "tests/aarch64.sh: the demo's report on the arm64 JDK $feature is not the split BiasTrap measured ($out)" >&2; return 1; }
    echo "tests/aarch64.sh: demo on the arm64 JDK $feature: $((SECONDS - step)) s" >&2
}

# The requests check's program, tests/aarch64/RequesterScenarios.java, compiled against the test
# classes Maven made, after aarch64_oracle_prepare. Sets requests_work.
aarch64_requests_prepare() {
    requests_work=$work/requests
    mkdir -p "$requests_work" || return 1
    "$host_jdk/bin/javac" --release 17 -cp "$repo/tests/target/test-classes" -d "$requests_work/classes" \
        "$repo/tests/aarch64/RequesterScenarios.java" || { echo "tests/aarch64.sh: RequesterScenarios was not compiled" >&2; return 1; }
}

# VirtualThreadsTest's 2,000 virtual threads would take minutes under qemu; 200 gave its check
# 102-134 timer requests in virtual threads there (50 asked), where on x86_64 they gave 49:
# emulated code takes that much more CPU time.
requests_virtual_threads=200
[[ $(uname -m) == aarch64 ]] && requests_virtual_threads=2000

# The requests check (see the top) on the arm64 JDK FEATURE, after aarch64_requests_prepare: one
# JVM with libstackreq.so and librequester.so runs the scenarios, CheckRequests on the host's JDK
# checks each one's report and recording. Work files in WORK/requests/jdkFEATURE.
aarch64_requests() {
    local feature=$1 arm_jdk out=$requests_work/jdk$1 step=$SECONDS checks=() what="biased requests"
    arm_jdk=$(arm64_jdk "$feature") || return 2
    # Virtual threads exist from JDK 21 on.
    ((feature >= 21)) && checks+=(--virtual-threads) && what+=" and $requests_virtual_threads virtual threads"
    mkdir -p "$out"
    echo "tests/aarch64.sh: librequester.so's $what on the arm64 JDK $feature" >&2
    (cd "$out" && arm64_java "$arm_jdk" "-agentpath:$build/native/libstackreq.so=log=info" \
        "-agentpath:$oracle_natives/librequester.so" -Djdk.virtualThreadScheduler.parallelism=2 \
        -cp "$requests_work/classes:$repo/tests/target/test-classes" RequesterScenarios "$out" "$requests_virtual_threads" \
        >"$out/out.txt" 2>"$out/agents.log") ||
        { echo "tests/aarch64.sh: the JVM failed (exit $?; $out/agents.log):" >&2; tail -20 "$out/agents.log" >&2; return 1; }
    grep -E '^\[stackreq\]\[warn\]|requests: requested' "$out/agents.log" >&2 || true
    "$host_jdk/bin/java" -cp "$test_classpath" "$repo/tests/aarch64/CheckRequests.java" "$out" "${checks[@]}" ||
        { echo "tests/aarch64.sh: librequester.so's $what on the arm64 JDK $feature broke a rule ($out)" >&2; return 1; }
    echo "tests/aarch64.sh: librequester.so's requests on the arm64 JDK $feature: $((SECONDS - step)) s" >&2
}

# What the null-ucontext check needs beyond aarch64_prepare: librequester.so cross-built (the test
# natives' CMakeLists.txt with the cross toolchain, as liboracle.so) and BusyThreads with the test
# app classes it uses, compiled by the host's JDK. Sets requester_natives and busy_classes.
aarch64_null_ucontext_prepare() {
    local step=$SECONDS
    busy_classes=$work/null-ucontext/classes
    mkdir -p "$work/null-ucontext" || return 1
    aarch64_test_natives "$work/null-ucontext/requester-build.log" requester || return 1
    requester_natives=$test_natives
    "$host_jdk/bin/javac" --release 17 -d "$busy_classes" -sourcepath "$repo/tests/src/test/java" \
        "$repo/tests/src/test/java/io/stackreq/testapp/BusyThreads.java" || return 1
    echo "tests/aarch64.sh: null-ucontext's build (librequester.so, BusyThreads): $((SECONDS - step)) s" >&2
}

# The null-ucontext check (see the top) on the arm64 JDK FEATURE, SECONDS of BusyThreads (wall
# time), after aarch64_null_ucontext_prepare. stackreq writes its own recording (file=): no JFR
# recording, whose start takes 20 s on JDK 25 under qemu. Work files in WORK/null-ucontext/jdkFEATURE.
aarch64_null_ucontext_run() {
    local feature=$1 seconds=$2 arm_jdk out=$work/null-ucontext/jdk$1 step=$SECONDS
    arm_jdk=$(arm64_jdk "$feature") || return 2
    mkdir -p "$out"
    echo "tests/aarch64.sh: null-ucontext=signal, BusyThreads for $seconds s on the arm64 JDK $feature" >&2
    (cd "$out" && arm64_java "$arm_jdk" \
        "-agentpath:$build/native/libstackreq.so=file=$out/requests.jfr,null-ucontext=signal,log=info" \
        "-agentpath:$requester_natives/librequester.so=null-ucontext" \
        -cp "$busy_classes" io.stackreq.testapp.BusyThreads threads=2 "seconds=$seconds" intervalUs=4000 \
        "out=$out/report.txt" >"$out/out.txt" 2>"$out/agents.log") ||
        { echo "tests/aarch64.sh: the JVM failed (exit $?; $out/agents.log):" >&2; tail -20 "$out/agents.log" >&2; return 1; }
    grep -E '^\[stackreq\]\[warn\]|requests: requested' "$out/agents.log" >&2 || true
    "$host_jdk/bin/java" "$repo/tests/aarch64/CheckNullUcontext.java" "$out/requests.jfr" "$out/report.txt" >&2 ||
        { echo "tests/aarch64.sh: null-ucontext=signal on the arm64 JDK $feature broke a rule ($out)" >&2; return 1; }
    echo "tests/aarch64.sh: null-ucontext=signal on the arm64 JDK $feature: $((SECONDS - step)) s" >&2
}

# The work of the continuous and attach checks: MainThreadTarget, busy on main and on one pool
# thread (woken at once), compiled by the host's JDK as Workload is. Its units are 10 times
# x86_64's: under qemu x86_64's unit takes about one 4 ms kernel tick, the cpu-timer engine's
# granularity, and an attach's profile then gave methodA 4-8 points too many on a busy machine.
# Sets target_classes.
target_unit=20000000
aarch64_target_prepare() {
    local sources=$repo/tests/src/test/java/io/stackreq/testapp
    target_classes=$work/target-classes
    "$host_jdk/bin/javac" --release 17 -d "$target_classes" "$sources/MainThreadTarget.java" "$sources/AttachTarget.java" \
        "$sources/Args.java" "$sources/KeyValues.java" "$sources/PidFile.java" "$repo/analysis/src/main/java/io/stackreq/demo/TwoPhase.java" ||
        { echo "tests/aarch64.sh: MainThreadTarget was not compiled" >&2; return 1; }
}

# target_start DIR JDK [JVM OPTIONS...]: MainThreadTarget on JDK (arm64_java) in the background,
# in DIR, until DIR/stop exists; returns once it runs its mix. Sets target_job (the shell that
# waits for it) and target_pid (the JVM's, which it writes to DIR/pid: under qemu the emulator's
# process is the JVM's, and the host's attach finds it by that pid).
target_start() {
    local dir=$1 jdk=$2 waited=0
    shift 2
    touch "$dir/wake"
    (cd "$dir" && arm64_java "$jdk" "$@" -cp "$target_classes" io.stackreq.testapp.MainThreadTarget "dir=$dir" \
        warmupSeconds=0 pool=1 "unit=$target_unit" >"$dir/target.out" 2>"$dir/agents.log") &
    target_job=$!
    # A hang guard only: JDK 25 under qemu takes about 90 s to get here with JFR at load 9.
    until [[ -s $dir/pid ]]; do
        kill -0 "$target_job" 2>/dev/null && ((waited++ < 3000)) ||
            { echo "tests/aarch64.sh: MainThreadTarget did not start ($dir/agents.log):" >&2; tail -20 "$dir/agents.log" >&2; return 1; }
        sleep 0.1
    done
    target_pid=$(<"$dir/pid")
}

# target_stop DIR: asks the target to exit and waits; fails unless it exits with 0.
target_stop() {
    touch "$1/stop"
    wait "$target_job" || { echo "tests/aarch64.sh: MainThreadTarget failed (exit $?; $1/agents.log):" >&2; tail -20 "$1/agents.log" >&2; return 1; }
}

# The continuous recording check (see the top) on the arm64 JDK FEATURE, frozen SECONDS after
# the dump, after aarch64_prepare and aarch64_target_prepare. Work files in
# WORK/continuous/jdkFEATURE: the file at exit, the dump, the frozen repository, the samples.
aarch64_continuous() {
    local feature=$1 seconds=$2 arm_jdk out=$work/continuous/jdk$1 step=$SECONDS frozen_at dump_begin waited=0 copied=0
    arm_jdk=$(arm64_jdk "$feature") || return 2
    rm -rf "$out" && mkdir -p "$out/repository" || return 1
    echo "tests/aarch64.sh: a continuous recording on the arm64 JDK $feature, dumped and frozen" >&2
    # pending=1500 rotates JFR's chunk every 1,500 accepted requests, about 3 s apart at the
    # least: a Java thread gets a request every 4 ms of its CPU at most, and two are busy. So no
    # rotation comes between the dump and a freeze 2 s after it (the default), and what was
    # accepted in between is in stackreq's side files only.
    target_start "$out" "$arm_jdk" "-agentpath:$build/native/libstackreq.so=pending=1500,log=info" \
        "-agentpath:$build/native/libstackreq-perf.so=engine=cpu-timer,interval=4ms,out=$out/samples.jsonl,log=info" \
        "-XX:FlightRecorderOptions:repository=$out/repository" \
        "-XX:StartFlightRecording=name=cont,disk=true,filename=$out/final.jfr,+jdk.StackTraceRequest#enabled=true" || return 1
    # Counted, not timed: a second chunk file once JFR finished the first (a hang guard: 2 minutes).
    until (($(find "$out/repository" -name '*.jfr' ! -name '*_stackreq_*' | wc -l) >= 2)); do
        kill -0 "$target_job" 2>/dev/null && ((waited++ < 1200)) ||
            { echo "tests/aarch64.sh: JFR did not rotate its chunk ($out)" >&2; target_stop "$out"; return 1; }
        sleep 0.1
    done
    dump_begin=$(date +%s%N)
    "$host_jdk/bin/jcmd" "$target_pid" JFR.dump name=cont "filename=$out/dump.jfr" >"$out/jcmd.txt" 2>&1 && [[ -s $out/dump.jfr ]] ||
        { cat "$out/jcmd.txt" >&2; echo "tests/aarch64.sh: the host's jcmd did not dump the recording of JVM $target_pid" >&2; target_stop "$out"; return 1; }
    # The dump finished a chunk: what came after it is in stackreq's side files only.
    sleep "$seconds"
    # What SIGKILL would leave, seen without ending the JVM: every thread stopped at one instant,
    # the repository copied as it is, then the JVM goes on.
    frozen_at=$(date +%s%N)
    kill -STOP "$target_pid" || return 1
    # A thread in a system call stops once the call returns: copying before then could take a
    # side file merged meanwhile and the file it replaced.
    waited=0
    until [[ $(grep -h '^State:' /proc/"$target_pid"/task/*/status 2>/dev/null | grep -cv -e stopped -e zombie -e dead) == 0 ]]; do
        ((waited++ < 1000)) || { echo "tests/aarch64.sh: JVM $target_pid did not stop in 10 s" >&2; kill -CONT "$target_pid"; target_stop "$out"; return 1; }
        sleep 0.01
    done
    cp -r "$out/repository" "$out/frozen" || copied=1
    kill -CONT "$target_pid" || return 1
    ((copied == 0)) || { echo "tests/aarch64.sh: the frozen repository was not copied ($out)" >&2; target_stop "$out"; return 1; }
    target_stop "$out" || return 1
    grep -E 'requests: requested|^stackreq-perf: [0-9]+ samples' "$out/agents.log" >&2 || true
    "$host_jdk/bin/java" "$repo/tests/aarch64/CheckContinuous.java" "$out/final.jfr" "$out/samples.jsonl" "$out/dump.jfr" \
        "$dump_begin" "$out/frozen" "$frozen_at" ||
        { echo "tests/aarch64.sh: the continuous recording on the arm64 JDK $feature broke a rule ($out)" >&2; return 1; }
    echo "tests/aarch64.sh: continuous recording on the arm64 JDK $feature: $((SECONDS - step)) s" >&2
}

# target_cpu_when DIR PATTERN JOB [SETTLE]: the target's last cpu line (DIR/target.out) once the
# profile's samples file (DIR/profile/samples.jsonl) has a line matching PATTERN; with SETTLE
# (seconds), the first cpu line printed at least SETTLE s after that instead. Fails when JOB ends
# before (or, with SETTLE, when no line comes within 60 s more).
target_cpu_when() {
    local dir=$1 pattern=$2 job=$3 settle=${4:-} lines waited=0
    until grep -q "$pattern" "$dir/profile/samples.jsonl" 2>/dev/null; do
        kill -0 "$job" 2>/dev/null || return 1
        sleep 0.05
    done
    if [[ -n $settle ]]; then
        sleep "$settle"
        lines=$(grep -c '^cpu ' "$dir/target.out")
        until (($(grep -c '^cpu ' "$dir/target.out") > lines)); do
            ((waited++ < 1200)) || return 1
            sleep 0.05
        done
        grep '^cpu ' "$dir/target.out" | sed -n "$((lines + 1))p"
        return
    fi
    grep '^cpu ' "$dir/target.out" | tail -1
}

# The attach check (see the top) on the arm64 JDK FEATURE, SECONDS of profile, after
# aarch64_prepare, aarch64_target_prepare, aarch64_demo_prepare (the CLI jar) and
# aarch64_test_classes_prepare (CheckAttach's class path). Work files in
# WORK/attach/jdkFEATURE: the target's output, the profile's directory, its report as JSON.
aarch64_attach() {
    local feature=$1 seconds=$2 arm_jdk out=$work/attach/jdk$1 step=$SECONDS before after profile_job
    arm_jdk=$(arm64_jdk "$feature") || return 2
    rm -rf "$out" && mkdir -p "$out" || return 1
    echo "tests/aarch64.sh: stackreq profile --pid --engine cpu-timer --duration ${seconds}s on the arm64 JDK $feature" >&2
    target_start "$out" "$arm_jdk" || return 1
    "$host_jdk/bin/java" -jar "$demo_jar" profile --pid "$target_pid" --agent-dir "$build/native" --engine cpu-timer \
        -i 4ms --duration "${seconds}s" -o "$out/profile" >"$out/profile.txt" 2>&1 &
    profile_job=$!
    # The target's CPU time over the sampling itself, which begins seconds after the attach (JFR
    # starts in the target meanwhile), but for its first 2 s: from its first cpu line 2 s after
    # the perf agent's start line to its last before the end line. Around the attach and the
    # first requests the target's methods run slow for a while in CPU time the samples do not
    # show (arm64 JDK 17: lines 1.4-1.6 s of CPU apart, one method 82-89% of each, against 50%
    # and 25% in the other 90-odd lines, whose samples had no CPU gap). A truth window holding
    # such a line gave methodA 58.4% and 55.4% where the profile had 49.2% and 49.7%. Probably
    # (not proven) CPU time qemu spends translating code the JIT made anew, which a thread's CPU
    # clock counts and its CPU-time timer's signal cannot interrupt; not seen on x86_64.
    before=$(target_cpu_when "$out" '"type":"start"' "$profile_job" 2) || true
    after=$(target_cpu_when "$out" '"type":"end"' "$profile_job") || true
    wait "$profile_job" && [[ -n $before && -n $after ]] ||
        { echo "tests/aarch64.sh: profile --pid failed ($out/profile.txt):" >&2; tail -20 "$out/profile.txt" >&2; target_stop "$out"; return 1; }
    target_stop "$out" || return 1
    "$host_jdk/bin/java" -jar "$demo_jar" report "$out/profile/recording.jfr" --samples "$out/profile/samples.jsonl" \
        --threads --format json --top 1000000 >"$out/report.json" ||
        { echo "tests/aarch64.sh: the profile's report as JSON failed ($out)" >&2; return 1; }
    "$host_jdk/bin/java" -cp "$test_classpath" "$repo/tests/aarch64/CheckAttach.java" "$out/profile" "$out/report.json" \
        "$before" "$after" ||
        { echo "tests/aarch64.sh: the profile of the arm64 JDK $feature after an attach broke a rule ($out)" >&2; return 1; }
    echo "tests/aarch64.sh: attach on the arm64 JDK $feature: $((SECONDS - step)) s" >&2
}

# ci_check FAILURE COMMAND...: runs COMMAND (its output shown, and kept in WORK/ci-check.log) and,
# when it fails, adds FAILURE to ci's failures with why: the BROKEN lines of the check and the
# output's last line. CI keeps only the end of its output, so that line must say why.
# with_time_limit SECONDS COMMAND...: runs COMMAND (a function too) and, when it outlives SECONDS,
# kills it with everything it started and returns 124, as timeout(1) does for a program.
with_time_limit() {
    local limit=$1 pid watchdog status
    shift
    "$@" &
    pid=$!
    (
        sleep "$limit"
        echo "BROKEN: still running after $limit s: killed" >&2
        kill_tree "$pid"
    ) &
    watchdog=$!
    wait "$pid"
    status=$?
    kill_tree "$watchdog" 2>/dev/null
    wait "$watchdog" 2>/dev/null
    # A process killed by the watchdog's SIGKILL ends with 128 + 9.
    ((status == 137)) && status=124
    return $status
}

kill_tree() {
    local child
    for child in $(pgrep -P "$1"); do kill_tree "$child"; done
    kill -KILL "$1" 2>/dev/null || true
}

# Every check has a time limit: a hang under emulation fails, naming the check.
ci_check_limit=${STACKREQ_AARCH64_CHECK_LIMIT:-600}

ci_check() {
    local failure=$1 log=$work/ci-check.log status why
    shift
    with_time_limit "$ci_check_limit" "$@" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    ((status == 0)) && return 0
    why=$( { grep -E '^BROKEN: ' "$log"; tail -1 "$log"; } | cut -c1-300 | awk '!seen[$0]++' | paste -sd'|' | sed 's/|/ | /g')
    failed+=("$failure: ${why:-no output}")
    return "$status"
}

# ci: everything above once, every failure named at the end.
aarch64_ci() {
    local seconds=$1 started=$SECONDS feature failed=() status=0 oracle_ready=1 cli_ready=0
    aarch64_prepare --test || status=$?
    ((status == 3)) && failed+=("the native unit tests under qemu")
    ((status != 0 && status != 3)) && { echo "tests/aarch64.sh ci: FAILED: the cross build or its preparation (exit $status)" >&2; return 1; }
    aarch64_oracle_prepare || { oracle_ready=0; failed+=("the oracle's build"); }
    for feature in 17 25; do
        echo "tests/aarch64.sh ci: arm64 JDK $feature" >&2
        ci_check "Workload's recording on the arm64 JDK $feature ($work/jdk$feature)" aarch64_run "$feature" "$seconds" || true
        if ((oracle_ready)); then
            ci_check "the oracle on the arm64 JDK $feature ($work/oracle-jdk$feature)" aarch64_oracle "$feature" "$oracle_seconds" || true
        fi
    done
    # The checks below are of parts that work alike on both JDKs; each runs on one JDK, the one
    # that takes less time under emulation unless the part differs on the other (virtual threads
    # on 25), so that the aarch64 set stays under 8 minutes and the whole CI under 30.
    if aarch64_native_prepare; then
        ci_check "native=on on the arm64 JDK 17 ($work/native/jdk17)" aarch64_native_run 17 3 || true
    else
        failed+=("the native=on program's build")
    fi
    if aarch64_null_ucontext_prepare; then
        ci_check "null-ucontext=signal on the arm64 JDK 17 ($work/null-ucontext/jdk17)" aarch64_null_ucontext_run 17 3 || true
    else
        failed+=("the null-ucontext check's build")
    fi
    if aarch64_demo_prepare; then
        cli_ready=1
        ci_check "the demo on the arm64 JDK 17 ($work/demo/jdk17)" aarch64_demo_run 17 10 || true
    else
        failed+=("the demo's CLI jar")
    fi
    ci_check "Workload's recording with walker=asgct on the arm64 JDK 17 ($work/jdk17-asgct)" aarch64_run 17 3 asgct || true
    if ((oracle_ready)) && aarch64_requests_prepare; then
        ci_check "librequester.so's requests on the arm64 JDK 25 ($work/requests/jdk25)" aarch64_requests 25 || true
    else
        failed+=("librequester.so's requests (not built)")
    fi
    if aarch64_target_prepare; then
        ci_check "the continuous recording on the arm64 JDK 17 ($work/continuous/jdk17)" aarch64_continuous 17 2 || true
        if ((cli_ready && oracle_ready)); then
            ci_check "the attach on the arm64 JDK 17 ($work/attach/jdk17)" aarch64_attach 17 8 || true
        fi
    else
        failed+=("MainThreadTarget's build")
    fi
    if ((${#failed[@]})); then
        echo "tests/aarch64.sh ci: FAILED after $((SECONDS - started)) s:" >&2
        printf '  %s\n' "${failed[@]}" >&2
        return 1
    fi
    echo "tests/aarch64.sh ci: passed in $((SECONDS - started)) s (unit tests, Workload and the oracle on arm64 JDK 17 and 25; the demo, native=on, null-ucontext=signal, walker=asgct, continuous recordings and attach on 17; librequester.so's requests and virtual threads on 25)" >&2
}

# seconds_argument DEFAULT ARG: ARG, else DEFAULT; a number.
seconds_argument() {
    local seconds=${2:-$1}
    [[ $seconds =~ ^[0-9]+$ && $seconds != 0 ]] || { echo "tests/aarch64.sh: a number of seconds, not '$seconds'" >&2; return 2; }
    echo "$seconds"
}

# jdk_and_seconds COMMAND DEFAULT [--jdk 17|25] [SECONDS]: sets feature (default 17) and seconds
# (default DEFAULT) from a command's arguments.
jdk_and_seconds() {
    local command=$1 default=$2
    shift 2
    feature=17
    if [[ ${1:-} == --jdk ]]; then
        feature=${2:-}
        shift 2 || shift
    fi
    [[ $feature == 17 || $feature == 25 ]] || { echo "tests/aarch64.sh: $command --jdk takes 17 or 25, not '$feature'" >&2; return 2; }
    seconds=$(seconds_argument "$default" "${1:-}") || return 2
}

command=${1:-}
(($#)) && shift
case $command in
    jdk)
        feature=17 update=""
        for argument in "$@"; do
            case $argument in
                --update) update=--update ;;
                *) feature=$argument ;;
            esac
        done
        aarch64_tools
        arm64_jdk "$feature" "$update"
        ;;
    run)
        # --walker WALKER anywhere among run's arguments; the rest are jdk_and_seconds'.
        walker=vmstructs arguments=()
        while (($#)); do
            if [[ $1 == --walker ]]; then walker=${2:-} && shift 2 || shift; else arguments+=("$1") && shift; fi
        done
        [[ $walker == vmstructs || $walker == asgct ]] || { echo "tests/aarch64.sh: run --walker takes vmstructs or asgct, not '$walker'" >&2; exit 2; }
        jdk_and_seconds run 20 "${arguments[@]}" || exit 2
        aarch64_prepare
        aarch64_run "$feature" "$seconds" "$walker"
        ;;
    native)
        jdk_and_seconds native 3 "$@" || exit 2
        aarch64_prepare
        aarch64_native_prepare
        aarch64_native_run "$feature" "$seconds"
        ;;
    oracle)
        jdk_and_seconds oracle "$oracle_seconds" "$@" || exit 2
        aarch64_prepare
        aarch64_oracle_prepare
        aarch64_oracle "$feature" "$seconds"
        ;;
    null-ucontext)
        jdk_and_seconds null-ucontext 3 "$@" || exit 2
        aarch64_prepare
        aarch64_null_ucontext_prepare
        aarch64_null_ucontext_run "$feature" "$seconds"
        ;;
    demo)
        jdk_and_seconds demo 10 "$@" || exit 2
        aarch64_prepare
        aarch64_demo_prepare
        aarch64_demo_run "$feature" "$seconds"
        ;;
    requests)
        case "$*" in
            "") feature=17 ;;
            "--jdk 17" | "--jdk 25") feature=$2 ;;
            *) echo "tests/aarch64.sh: requests takes [--jdk 17|25], not '$*'" >&2; exit 2 ;;
        esac
        aarch64_prepare
        aarch64_oracle_prepare
        aarch64_requests_prepare
        aarch64_requests "$feature"
        ;;
    continuous)
        jdk_and_seconds continuous 2 "$@" || exit 2
        aarch64_prepare
        aarch64_target_prepare
        aarch64_continuous "$feature" "$seconds"
        ;;
    attach)
        jdk_and_seconds attach 8 "$@" || exit 2
        aarch64_prepare
        aarch64_target_prepare
        aarch64_demo_prepare
        aarch64_test_classes_prepare
        aarch64_attach "$feature" "$seconds"
        ;;
    ci)
        seconds=$(seconds_argument 6 "${1:-}") || exit 2
        aarch64_ci "$seconds"
        ;;
    *) echo "usage: tests/aarch64.sh jdk [17|25] [--update] | run [--jdk 17|25] [--walker asgct] [SECONDS] | native [--jdk 17|25] [SECONDS] | oracle [--jdk 17|25] [SECONDS] | demo [--jdk 17|25] [SECONDS] | requests [--jdk 17|25] | null-ucontext [--jdk 17|25] [SECONDS] | continuous [--jdk 17|25] [SECONDS] | attach [--jdk 17|25] [SECONDS] | ci [SECONDS] (--help)" >&2; exit 2 ;;
esac
