#!/usr/bin/env bash
# tests/jdk21.sh: prints the home of a JDK 21 of the project's own, fetching it on first use.
#
# Debian bookworm ships no JDK 21. Debian trixie's openjdk-21-jdk-headless does, from the same
# package registry, but needs glibc 2.38+. So this script downloads trixie's JDK packages and the
# libraries they need (libc6, zlib1g, libgcc-s1, libstdc++6, libzstd1) with a private apt
# configuration (the system's sources, lists and installed packages are left alone), unpacks
# them with dpkg -x into the cache folder, and replaces the JDK's executables (bin/* and
# lib/jspawnhelper) with small scripts that exec trixie's loader:
#
#   ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path ROOT/usr/lib/x86_64-linux-gnu:HOME/lib:HOME/lib/server
#       --argv0 HOME/bin/java HOME/bin.real/java ARGS...
#
# so the JDK home looks like any other (release says JAVA_VERSION="21..., bin/java, bin/jcmd,
# bin/jfr, bin/javac run), the process of bin/java is the JVM itself (attach and jcmd work), and
# the programs a JVM starts run with the system's libraries. Links to /etc/java-21-openjdk become
# relative links to the unpacked etc/.
#
# Cache: $STACKREQ_CACHE/jdk21/<version>/, by default /var/cache/stackreq as root (readable by
# every user, like /usr/lib/jvm: AttachBadInputTest runs a JVM as nobody) and
# ${XDG_CACHE_HOME:-~/.cache}/stackreq otherwise — outside the clone, so a clean clone reuses a
# previous download and a fresh machine downloads it (124 MB, 300 MB unpacked). The newest
# complete one there is used without asking the registry; `tests/jdk21.sh --update` fetches
# trixie's current version when it is newer.
# Usable alone (prints the home) or sourced (defines stackreq_jdk21).
# Only amd64 (x86_64): the architecture stackreq's test suite runs on (aarch64: tests/aarch64.sh).

source "$(dirname "${BASH_SOURCE[0]}")/debian-jdk.sh"

stackreq_jdk21() {
    if [[ $(uname -m) != x86_64 ]]; then
        echo "tests/jdk21.sh: only x86_64 is supported (this is $(uname -m)): set JDK21_HOME" >&2
        return 2
    fi
    debian_jdk "$(debian_jdk_cache jdk21)" "${1:-}" stackreq_jdk21_fetch
}

stackreq_jdk21_fetch() {
    debian_jdk_fetch "$1" tests/jdk21.sh amd64 usr/lib/jvm/java-21-openjdk-amd64 stackreq_jdk21_finish \
        openjdk-21-jdk-headless openjdk-21-jre-headless libc6 zlib1g libgcc-s1 libstdc++6 libzstd1 \
        -- "trixie main" "trixie-security main"
}

# The executables become scripts that run them through trixie's loader.
stackreq_jdk21_finish() {
    local jdk=$2 tool
    grep -q '^JAVA_VERSION="21' "$jdk/release" || { echo "tests/jdk21.sh: $jdk/release is not JDK 21" >&2; return 2; }
    mkdir "$jdk/bin.real"
    for tool in "$jdk"/bin/*; do
        tool=${tool##*/}
        mv "$jdk/bin/$tool" "$jdk/bin.real/$tool"
        stackreq_jdk21_wrapper "bin.real/$tool" "../../../.." >"$jdk/bin/$tool"
        chmod 755 "$jdk/bin/$tool"
    done
    mv "$jdk/lib/jspawnhelper" "$jdk/lib/jspawnhelper.real"
    stackreq_jdk21_wrapper lib/jspawnhelper.real "../../../.." >"$jdk/lib/jspawnhelper"
    chmod 755 "$jdk/lib/jspawnhelper"
    "$jdk/bin/java" -version >&2 2>&1 || { echo "tests/jdk21.sh: the unpacked JDK does not run" >&2; return 2; }
}

# A script that runs the JDK's executable REAL (relative to the home) through trixie's loader;
# UP leads from the home to the unpacked root. Paths are taken from the script's own, so the
# cache folder may move.
stackreq_jdk21_wrapper() {
    local real=$1 up=$2
    cat <<EOF
#!/bin/sh
# Written by stackreq's tests/jdk21.sh: Debian trixie's JDK 21 needs trixie's glibc, so its
# executable runs through trixie's loader (exec: this process becomes the JVM).
case \$0 in */*) home=\${0%/*}/.. ;; *) home=\$(dirname "\$(command -v "\$0")")/.. ;; esac
root=\$home/$up
exec "\$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \\
    --library-path "\$root/usr/lib/x86_64-linux-gnu:\$home/lib:\$home/lib/server" \\
    --argv0 "\$0" "\$home/$real" "\$@"
EOF
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    stackreq_jdk21 "${1:-}"
fi
