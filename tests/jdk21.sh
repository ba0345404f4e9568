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

stackreq_jdk21() {
    local update=${1:-} cache base dir home
    if [[ -n ${STACKREQ_CACHE:-} ]]; then
        cache=$STACKREQ_CACHE/jdk21
    elif [[ $(id -u) == 0 ]]; then
        cache=/var/cache/stackreq/jdk21
    else
        cache=${XDG_CACHE_HOME:-$HOME/.cache}/stackreq/jdk21
    fi
    if [[ $(uname -m) != x86_64 ]]; then
        echo "tests/jdk21.sh: only x86_64 is supported (this is $(uname -m)): set JDK21_HOME" >&2
        return 2
    fi
    mkdir -p "$cache" || return 2
    if [[ $update != --update ]]; then
        home=$(stackreq_jdk21_cached "$cache") && { echo "$home"; return 0; }
    fi
    (
        set -euo pipefail
        exec 9>"$cache/.lock"
        flock 9
        if [[ $update != --update ]] && home=$(stackreq_jdk21_cached "$cache"); then
            echo "$home"
            exit 0
        fi
        stackreq_jdk21_fetch "$cache"
    )
}

# The home of the newest complete JDK in the cache; fails when there is none.
stackreq_jdk21_cached() {
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

stackreq_jdk21_fetch() {
    local cache=$1 apt work mirror version dir root jdk started=$SECONDS
    local packages=(openjdk-21-jdk-headless openjdk-21-jre-headless libc6 zlib1g libgcc-s1 libstdc++6 libzstd1)
    # The mirror host the system's apt uses (deb.debian.org by default).
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -1 | tr -d ' ') || true
    mirror=${mirror%/}
    [[ -n $mirror ]] || mirror=http://deb.debian.org/debian
    apt=$cache/apt
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    : >"$apt/status"
    {
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main"
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/debian}/debian-security trixie-security main"
    } >"$apt/sources.list"
    local options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
        -o "Dir::State::Lists=$apt/lists" -o "Dir::State::Status=$apt/status" -o "Dir::Cache=$apt/cache"
        -o APT::Architectures=amd64 -o APT::Sandbox::User=root -o Debug::NoLocking=1)
    echo "tests/jdk21.sh: fetching Debian trixie's JDK 21 ($mirror) into $cache" >&2
    apt-get "${options[@]}" -qq update >&2
    version=$(apt-cache "${options[@]}" policy openjdk-21-jdk-headless | sed -n 's/^ *Candidate: //p')
    [[ -n $version && $version != "(none)" ]] || { echo "tests/jdk21.sh: trixie has no openjdk-21-jdk-headless" >&2; return 2; }
    dir=$cache/${version//[^A-Za-z0-9.]/-}
    if [[ -f $dir/.complete ]]; then
        readlink -f "$dir/home"
        return 0
    fi
    work=$cache/.partial
    rm -rf "$work" "$dir"
    mkdir -p "$work/debs" "$work/root"
    (cd "$work/debs" && apt-get "${options[@]}" -qq download "${packages[@]}" >&2)
    root=$work/root
    for deb in "$work"/debs/*.deb; do
        dpkg -x "$deb" "$root"
    done
    ls -1 "$work/debs" >"$work/packages.txt"
    echo "tests/jdk21.sh: $(du -shc "$work"/debs/*.deb | tail -1 | cut -f1) downloaded in $((SECONDS - started)) s" >&2
    rm -rf "$work/debs"
    jdk=$root/usr/lib/jvm/java-21-openjdk-amd64
    grep -q '^JAVA_VERSION="21' "$jdk/release" || { echo "tests/jdk21.sh: $jdk/release is not JDK 21" >&2; return 2; }
    # Absolute links into the unpacked tree (conf -> /etc/java-21-openjdk/...) become relative.
    local link target
    while IFS= read -r link; do
        target=$(readlink "$link")
        if [[ -e $root$target || -L $root$target ]]; then
            ln -sfn "$(realpath -s --relative-to="$(dirname "$link")" "$root$target")" "$link"
        fi
    done < <(find "$root" -type l -lname '/*')
    # The executables become scripts that run them through trixie's loader.
    mkdir "$jdk/bin.real"
    local tool
    for tool in "$jdk"/bin/*; do
        tool=${tool##*/}
        mv "$jdk/bin/$tool" "$jdk/bin.real/$tool"
        stackreq_jdk21_wrapper "bin.real/$tool" "../../../.." >"$jdk/bin/$tool"
        chmod 755 "$jdk/bin/$tool"
    done
    mv "$jdk/lib/jspawnhelper" "$jdk/lib/jspawnhelper.real"
    stackreq_jdk21_wrapper lib/jspawnhelper.real "../../../.." >"$jdk/lib/jspawnhelper"
    chmod 755 "$jdk/lib/jspawnhelper"
    ln -s root/usr/lib/jvm/java-21-openjdk-amd64 "$work/home"
    "$work/home/bin/java" -version >&2 2>&1 || { echo "tests/jdk21.sh: the unpacked JDK does not run" >&2; return 2; }
    echo "$version" >"$work/.complete"
    mv "$work" "$dir"
    echo "tests/jdk21.sh: JDK 21 ready in $((SECONDS - started)) s: $(readlink -f "$dir/home")" >&2
    readlink -f "$dir/home"
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
