#!/usr/bin/env bash
# tests/aarch64.sh: stackreq on aarch64 Linux, emulated on an x86_64 machine (or native on an
# aarch64 one). Two commands:
#
#   tests/aarch64.sh jdk [--update]   prints the home of an aarch64 JDK 17, fetching it on first use
#   tests/aarch64.sh run [SECONDS]    the end-to-end check below (default 20 s of sampling)
#
# jdk: Debian bookworm's openjdk-17-jdk-headless and openjdk-17-jre-headless for arm64, with the
# libraries they need (libc6, libgcc-s1, libstdc++6, zlib1g), downloaded with a private apt
# configuration (the system's sources, lists, architectures and installed packages are left
# alone; tests/debian-jdk.sh, shared with tests/jdk21.sh) and unpacked with dpkg -x into $STACKREQ_CACHE/jdk17-arm64/
# <version>/root, by default /var/cache/stackreq as root and ${XDG_CACHE_HOME:-~/.cache}/stackreq
# otherwise. Absolute links into the unpacked tree become relative ones. The JDK runs as
#   qemu-aarch64-static -L ROOT ROOT/usr/lib/jvm/java-17-openjdk-arm64/bin/java ...
# (on an aarch64 machine, directly; ROOT's loader is then not needed).
#
# run: cross-builds libstackreq.so and libstackreq-perf.so (jvmti-ext/build-aarch64.sh) and the
# events jar (Maven, jfr-events), compiles a small Java program with the host's JDK, and runs it
# on the aarch64 JDK with both agents: libstackreq-perf.so's cpu-timer engine (perf_event_open is
# ENOSYS under qemu's user-mode emulation) requests a stack trace every 10 ms of each thread's CPU
# time from the signal's ucontext, stackreq walks it with AsyncGetCallTrace (walker=vmstructs is
# not available on aarch64 yet; it says so) and a JFR recording takes the jdk.StackTraceRequest
# events. Then, with the host JDK's jfr: events arrived, each sample's userData is the userData
# of exactly one event, the last statistics event says accepted = emitted + dropped with nothing
# pending and emitted = the events in the file, and at least 99% of the stacks with Workload's
# frames reach their thread's first frame (Workload.main or Thread.run). About 2.5 minutes with
# the cross build, 45 s after it.
# Installs what is missing through apt (the cross g++, qemu-user-static, maven).
set -euo pipefail
for argument in "$@"; do [[ $argument == --help || $argument == -h ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }; done
repo=$(cd "$(dirname "$0")/.." && pwd)

source "$repo/tests/debian-jdk.sh"

arm64_jdk() {
    debian_jdk "$(debian_jdk_cache jdk17-arm64)" "${1:-}" arm64_jdk_fetch
}

arm64_jdk_fetch() {
    debian_jdk_fetch "$1" tests/aarch64.sh arm64 usr/lib/jvm/java-17-openjdk-arm64 arm64_jdk_check \
        openjdk-17-jdk-headless openjdk-17-jre-headless libc6 libgcc-s1 libstdc++6 zlib1g \
        -- "bookworm main" "bookworm-updates main" "bookworm-security main"
}

arm64_jdk_check() {
    grep -q '^JAVA_VERSION="17' "$2/release" || { echo "tests/aarch64.sh: $2/release is not JDK 17" >&2; return 2; }
}

# The end-to-end check (see the top). Work files in $STACKREQ_AARCH64_WORK, default
# tests/target/aarch64-run: the recording, the samples, both agents' log.
aarch64_run() {
    local seconds=${1:-20} work=${STACKREQ_AARCH64_WORK:-$repo/tests/target/aarch64-run}
    local build=$repo/jvmti-ext/target/aarch64
    local host_jdk arm_jdk root events_jar java=() need_packages=()
    [[ $seconds =~ ^[0-9]+$ ]] || { echo "tests/aarch64.sh: run takes a number of seconds, not '$seconds'" >&2; return 2; }
    command -v mvn >/dev/null || need_packages+=(maven)
    [[ $(uname -m) != aarch64 ]] && ! command -v qemu-aarch64-static >/dev/null && need_packages+=(qemu-user-static)
    if ((${#need_packages[@]})); then
        echo "tests/aarch64.sh: installing ${need_packages[*]} (Debian packages)" >&2
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_packages[@]}" >/dev/null
    fi
    source "$repo/tests/jdks.sh"
    host_jdk=$(require_jdk 17 tests/aarch64.sh) || return 2
    arm_jdk=$(arm64_jdk) || return 2
    "$repo/jvmti-ext/build-aarch64.sh" "$build" >/dev/null
    rm -rf "$work"
    mkdir -p "$work"
    # The events jar is bytecode: the same on every architecture.
    (cd "$repo" && JAVA_HOME=$host_jdk mvn -B -q -ntp -pl jfr-events package -DskipTests >"$work/mvn.log" 2>&1) ||
        { cat "$work/mvn.log" >&2; return 1; }
    events_jar=$repo/jfr-events/target/stackreq-events.jar
    "$host_jdk/bin/javac" --release 17 -d "$work/classes" "$repo/tests/aarch64/Workload.java"
    if [[ $(uname -m) == aarch64 ]]; then
        java=("$arm_jdk/bin/java")
    else
        root=${arm_jdk%/usr/lib/jvm/*}
        java=(qemu-aarch64-static -L "$root" "$arm_jdk/bin/java")
    fi
    echo "tests/aarch64.sh: running Workload for $seconds s on $("${java[@]}" -version 2>&1 | head -1) (${java[0]})" >&2
    (cd "$work" && "${java[@]}" \
        "-agentpath:$build/native/libstackreq.so=events-jar=$events_jar,log=info" \
        "-agentpath:$build/native/libstackreq-perf.so=engine=cpu-timer,interval=10ms,out=$work/samples.jsonl,log=info" \
        -XX:StartFlightRecording=filename=$work/rec.jfr,+jdk.StackTraceRequest#enabled=true \
        -cp "$work/classes" Workload "$seconds" >"$work/out.txt" 2>"$work/agents.log")
    grep -E '^\[stackreq\]\[warn\]|requests: requested|^stackreq-perf: [0-9]+ samples' "$work/agents.log" >&2 || true
    grep -q "walker=vmstructs is not available on aarch64 yet; stacks are walked with AsyncGetCallTrace" "$work/agents.log" ||
        { echo "tests/aarch64.sh: no line says walker=vmstructs falls back ($work/agents.log)" >&2; return 1; }
    "$host_jdk/bin/java" "$repo/tests/aarch64/CheckRecording.java" "$work/rec.jfr" "$work/samples.jsonl"
}

case ${1:-} in
    jdk) arm64_jdk "${2:-}" ;;
    run) aarch64_run "${2:-}" ;;
    *) echo "usage: tests/aarch64.sh jdk [--update] | run [SECONDS] (--help)" >&2; exit 2 ;;
esac
