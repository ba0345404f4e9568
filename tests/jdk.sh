#!/usr/bin/env bash
# tests/jdk.sh FEATURE [--update]: prints the home of a JDK of that feature release of the
# project's own (x86_64), fetched from Debian's package registry on first use:
#
#   8    openjdk-8-jdk-headless   sid               needs sid's glibc; its launcher finds its JRE from
#                                                   /proc/self/exe, so the executables are patched
#                                                   (patchelf) to use the unpacked loader and libraries
#   11   openjdk-11-jdk-headless  bullseye-security runs on this machine's glibc as it is
#   21   openjdk-21-jdk-headless  trixie            needs trixie's glibc 2.38+
#   27   openjdk-27-jdk-headless  sid               needs sid's glibc
#   28   openjdk-28-jdk-headless  experimental      (an early-access build) needs sid's glibc
#
# Downloads go through a private apt configuration (the system's sources, lists and installed
# packages are left alone) and are unpacked with dpkg -x (tests/debian-jdk.sh). A JDK that needs
# a newer glibc than the machine's gets its suite's libc6, zlib1g, libgcc-s1, libstdc++6 and
# libzstd1 unpacked beside it, and its executables (bin/* and lib/jspawnhelper) become small
# scripts that exec the unpacked loader:
#
#   ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path ROOT/usr/lib/x86_64-linux-gnu:HOME/lib:HOME/lib/server
#       --argv0 HOME/bin/java HOME/bin.real/java ARGS...
#
# so the home looks like any other (release, bin/java, bin/jcmd, bin/jfr), the process of
# bin/java is the JVM itself (attach and jcmd work), and the programs a JVM starts run with the
# system's libraries.
#
# Cache: $STACKREQ_CACHE/jdk<FEATURE>/<version>/, by default /var/cache/stackreq as root
# (readable by every user, like /usr/lib/jvm: AttachBadInputTest runs a JVM as nobody) and
# ${XDG_CACHE_HOME:-~/.cache}/stackreq otherwise: outside the clone, so a clean clone reuses a
# previous download. The newest complete one there is used without asking the registry;
# --update fetches the suite's current version when it is newer.
# Usable alone (prints the home) or sourced (defines stackreq_jdk).

source "$(dirname "${BASH_SOURCE[0]}")/debian-jdk.sh"

stackreq_jdk_suites() {
    case $1 in
        8 | 27) echo "sid main" ;;
        11) echo "bullseye-security main" "bullseye main" ;;
        21) echo "trixie main" "trixie-security main" ;;
        28) echo "experimental main" "sid main" ;;
        *) return 1 ;;
    esac
}

# stackreq_jdk FEATURE [--update]
stackreq_jdk() {
    local feature=$1
    if ! stackreq_jdk_suites "$feature" >/dev/null; then
        echo "tests/jdk.sh: no Debian JDK $feature known here (8, 11, 21, 27 or 28)" >&2
        return 2
    fi
    if [[ $(uname -m) != x86_64 ]]; then
        echo "tests/jdk.sh: only x86_64 is supported (this is $(uname -m)): set JDK${feature}_HOME" >&2
        return 2
    fi
    debian_jdk "$(debian_jdk_cache "jdk$feature")" "${2:-}" stackreq_jdk_fetch "$feature"
}

stackreq_jdk_fetch() {
    local cache=$1 feature=$2 packages suites=()
    mapfile -t suites < <(stackreq_jdk_suites "$feature" | tr ' ' '\n' | paste -d' ' - -)
    packages=("openjdk-$feature-jdk-headless" "openjdk-$feature-jre-headless")
    [[ $feature != 11 ]] && packages+=(libc6 zlib1g libgcc-s1 libstdc++6 libzstd1)
    [[ $feature == 8 ]] && packages+=(patchelf)
    debian_jdk_fetch "$cache" tests/jdk.sh amd64 "usr/lib/jvm/java-$feature-openjdk-amd64" "stackreq_jdk_finish_$( 
        case $feature in 8) echo patched ;; 11) echo plain ;; *) echo wrapped ;; esac)" \
        "${packages[@]}" -- "${suites[@]}"
}

stackreq_jdk_check() {
    local jdk=$1 release
    release=$(sed -n 's/^JAVA_VERSION="\([0-9.]*\).*/\1/p' "$jdk/release")
    [[ -n $release ]] || { echo "tests/jdk.sh: $jdk/release names no JAVA_VERSION" >&2; return 2; }
    "$jdk/bin/java" -version >&2 2>&1 || { echo "tests/jdk.sh: the unpacked JDK does not run" >&2; return 2; }
}

stackreq_jdk_finish_plain() {
    stackreq_jdk_check "$2"
}

# The executables become scripts that run them through the unpacked loader.
stackreq_jdk_finish_wrapped() {
    local jdk=$2 tool
    mkdir "$jdk/bin.real"
    for tool in "$jdk"/bin/*; do
        tool=${tool##*/}
        mv "$jdk/bin/$tool" "$jdk/bin.real/$tool"
        stackreq_jdk_wrapper "bin.real/$tool" "../../../.." >"$jdk/bin/$tool"
        chmod 755 "$jdk/bin/$tool"
    done
    mv "$jdk/lib/jspawnhelper" "$jdk/lib/jspawnhelper.real"
    stackreq_jdk_wrapper lib/jspawnhelper.real "../../../.." >"$jdk/lib/jspawnhelper"
    chmod 755 "$jdk/lib/jspawnhelper"
    stackreq_jdk_check "$jdk"
}

# JDK 8's launcher re-executes itself and finds its JRE from /proc/self/exe, which a loader
# wrapper would name: its ELF executables get the unpacked loader as interpreter and a run path
# to the unpacked libraries instead, an old-style DT_RPATH so that libjvm.so, which the launcher
# loads itself, finds them too (absolute paths: this cache folder may not move).
stackreq_jdk_finish_patched() {
    local root=$1 jdk=$2 final=$3 file version run_path status=0
    local libs=$root/usr/lib/x86_64-linux-gnu
    patchelf() { "$libs/ld-linux-x86-64.so.2" --library-path "$libs" "$root/usr/bin/patchelf" "$@"; }
    for file in "$jdk"/bin/* "$jdk"/jre/bin/* "$jdk"/jre/lib/amd64/jspawnhelper; do
        [[ -f $file && ! -L $file ]] || continue
        head -c 4 "$file" | grep -q ELF || continue
        run_path=$(patchelf --print-rpath "$file")
        patchelf --force-rpath --set-interpreter "$final/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \
            --set-rpath "${run_path:+$run_path:}$final/usr/lib/x86_64-linux-gnu" "$file"
    done
    # The executables run once ROOT is at FINAL: a link stands in for it during the checks.
    [[ -e $final ]] && { echo "tests/jdk.sh: $final exists already" >&2; return 2; }
    mkdir -p "${final%/*}" && ln -s "$(readlink -f "$root")" "$final"
    version=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.version = //p')
    # Debian's JDK 8 has no release file; the JDK's own builds write one, which tools read.
    if [[ -n $version ]]; then
        [[ -f $jdk/release ]] || echo "JAVA_VERSION=\"$version\"" >"$jdk/release"
        stackreq_jdk_check "$jdk" || status=2
    else
        echo "tests/jdk.sh: the patched JDK 8 does not run" >&2
        status=2
    fi
    rm "$final" && rmdir "${final%/*}"
    return $status
}

# A script that runs the JDK's executable REAL (relative to the home) through the unpacked
# loader; UP leads from the home to the unpacked root. Paths are taken from the script's own, so
# the cache folder may move.
stackreq_jdk_wrapper() {
    local real=$1 up=$2
    cat <<SCRIPT
#!/bin/sh
# Written by stackreq's tests/jdk.sh: this JDK needs a newer glibc than the machine's, so its
# executable runs through the unpacked loader (exec: this process becomes the JVM).
case \$0 in */*) home=\${0%/*}/.. ;; *) home=\$(dirname "\$(command -v "\$0")")/.. ;; esac
root=\$home/$up
exec "\$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \\
    --library-path "\$root/usr/lib/x86_64-linux-gnu:\$home/lib:\$home/lib/server" \\
    --argv0 "\$0" "\$home/$real" "\$@"
SCRIPT
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    for argument in "$@"; do [[ $argument == --help || $argument == -h ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }; done
    [[ $# -ge 1 ]] || { echo "usage: tests/jdk.sh FEATURE [--update] (8, 11, 21, 27 or 28)" >&2; exit 2; }
    stackreq_jdk "$@"
fi
