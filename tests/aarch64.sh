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
# alone; as tests/jdk21.sh does) and unpacked with dpkg -x into $STACKREQ_CACHE/jdk17-arm64/
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

arm64_cache() {
    if [[ -n ${STACKREQ_CACHE:-} ]]; then
        echo "$STACKREQ_CACHE/jdk17-arm64"
    elif [[ $(id -u) == 0 ]]; then
        echo /var/cache/stackreq/jdk17-arm64
    else
        echo "${XDG_CACHE_HOME:-$HOME/.cache}/stackreq/jdk17-arm64"
    fi
}

# The home of the newest complete JDK in the cache; fails when there is none.
arm64_jdk_cached() {
    local cache=$1 dir
    for dir in $(ls -1d "$cache"/*/ 2>/dev/null | sort -rV); do
        dir=${dir%/}
        if [[ -f $dir/.complete && -x $dir/home/bin/java ]]; then
            readlink -f "$dir/home"
            return 0
        fi
    done
    return 1
}

arm64_jdk_fetch() {
    local cache=$1 apt work mirror version dir root jdk started=$SECONDS link target
    local packages=(openjdk-17-jdk-headless openjdk-17-jre-headless libc6 libgcc-s1 libstdc++6 zlib1g)
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -1 | tr -d ' ') || true
    mirror=${mirror%/}
    [[ -n $mirror ]] || mirror=http://deb.debian.org/debian
    apt=$cache/apt
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    : >"$apt/status"
    {
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main"
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-updates main"
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/debian}/debian-security bookworm-security main"
    } >"$apt/sources.list"
    local options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
        -o "Dir::State::Lists=$apt/lists" -o "Dir::State::Status=$apt/status" -o "Dir::Cache=$apt/cache"
        -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o APT::Sandbox::User=root -o Debug::NoLocking=1)
    echo "tests/aarch64.sh: fetching Debian bookworm's arm64 JDK 17 ($mirror) into $cache" >&2
    apt-get "${options[@]}" -qq update >&2
    version=$(apt-cache "${options[@]}" policy openjdk-17-jdk-headless:arm64 | sed -n 's/^ *Candidate: //p')
    [[ -n $version && $version != "(none)" ]] || { echo "tests/aarch64.sh: bookworm has no openjdk-17-jdk-headless:arm64" >&2; return 2; }
    dir=$cache/${version//[^A-Za-z0-9.]/-}
    if [[ -f $dir/.complete ]]; then
        readlink -f "$dir/home"
        return 0
    fi
    work=$cache/.partial
    rm -rf "$work" "$dir"
    mkdir -p "$work/debs" "$work/root"
    (cd "$work/debs" && apt-get "${options[@]}" -qq download "${packages[@]/%/:arm64}" >&2)
    root=$work/root
    for deb in "$work"/debs/*.deb; do
        dpkg -x "$deb" "$root"
    done
    ls -1 "$work/debs" >"$work/packages.txt"
    echo "tests/aarch64.sh: $(du -shc "$work"/debs/*.deb | tail -1 | cut -f1) downloaded in $((SECONDS - started)) s" >&2
    rm -rf "$work/debs"
    jdk=$root/usr/lib/jvm/java-17-openjdk-arm64
    grep -q '^JAVA_VERSION="17' "$jdk/release" || { echo "tests/aarch64.sh: $jdk/release is not JDK 17" >&2; return 2; }
    # Absolute links into the unpacked tree (lib/jvm.cfg -> /etc/java-17-openjdk/...) become
    # relative: the host resolves links itself, and its /etc is x86_64's JDK's or nothing.
    while IFS= read -r link; do
        target=$(readlink "$link")
        if [[ -e $root$target || -L $root$target ]]; then
            ln -sfn "$(realpath -s --relative-to="$(dirname "$link")" "$root$target")" "$link"
        fi
    done < <(find "$root" -type l -lname '/*')
    ln -s root/usr/lib/jvm/java-17-openjdk-arm64 "$work/home"
    echo "$version" >"$work/.complete"
    mv "$work" "$dir"
    echo "tests/aarch64.sh: arm64 JDK 17 ready in $((SECONDS - started)) s: $(readlink -f "$dir/home")" >&2
    readlink -f "$dir/home"
}

arm64_jdk() {
    local update=${1:-} cache
    cache=$(arm64_cache)
    mkdir -p "$cache"
    if [[ $update != --update ]] && arm64_jdk_cached "$cache"; then return 0; fi
    (
        exec 9>"$cache/.lock"
        flock 9
        if [[ $update != --update ]] && arm64_jdk_cached "$cache"; then exit 0; fi
        arm64_jdk_fetch "$cache"
    )
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
