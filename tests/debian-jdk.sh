# Sourced by tests/jdk.sh and tests/aarch64.sh: a JDK of the project's own from Debian's package
# registry, downloaded with a private apt configuration (the system's sources, lists,
# architectures and installed packages are left alone) and unpacked with dpkg -x into a cache
# folder outside the clone, so that a clean clone reuses a previous download and a fresh machine
# downloads it.
#
#   debian_jdk_cache NAME                  the cache folder: $STACKREQ_CACHE/NAME, else
#                                          /var/cache/stackreq/NAME as root (readable by every user,
#                                          like /usr/lib/jvm), else ${XDG_CACHE_HOME:-~/.cache}/stackreq/NAME
#   debian_jdk CACHE UPDATE FETCH ARGS...  prints the home of the newest complete JDK in CACHE; with
#                                          UPDATE=--update, or when there is none, runs FETCH CACHE ARGS...
#                                          under a lock (one download at a time)
#   debian_jdk_fetch CACHE LABEL ARCH HOME FINISH PACKAGES... -- SOURCES...
#                                          downloads PACKAGES for ARCH from the apt SOURCES lines
#                                          ("SUITE COMPONENT" on the system's Debian mirror), unpacks
#                                          them into CACHE/<version>/root, makes absolute links into the
#                                          tree relative, runs FINISH ROOT JDK FINAL (JDK = ROOT/HOME;
#                                          FINAL: where ROOT will be once complete) and
#                                          prints the home; LABEL names the caller in messages

debian_jdk_cache() {
    if [[ -n ${STACKREQ_CACHE:-} ]]; then
        echo "$STACKREQ_CACHE/$1"
    elif [[ $(id -u) == 0 ]]; then
        echo "/var/cache/stackreq/$1"
    else
        echo "${XDG_CACHE_HOME:-$HOME/.cache}/stackreq/$1"
    fi
}

# The home of the newest complete JDK in the cache; fails when there is none.
debian_jdk_cached() {
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

debian_jdk() {
    local cache=$1 update=$2 home
    shift 2
    mkdir -p "$cache" || return 2
    if [[ $update != --update ]]; then
        home=$(debian_jdk_cached "$cache") && { echo "$home"; return 0; }
    fi
    (
        set -euo pipefail
        exec 9>"$cache/.lock"
        flock 9
        if [[ $update != --update ]] && home=$(debian_jdk_cached "$cache"); then
            echo "$home"
            exit 0
        fi
        "$1" "$cache" "${@:2}"
    )
}

debian_jdk_fetch() {
    local cache=$1 label=$2 arch=$3 home_path=$4 finish=$5 apt work mirror version dir root jdk link target
    local started=$SECONDS packages=() sources=()
    shift 5
    while (($#)) && [[ $1 != -- ]]; do packages+=("$1"); shift; done
    (($#)) && shift
    sources=("$@")
    # The mirror host the system's apt uses (deb.debian.org by default).
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -1 | tr -d ' ') || true
    mirror=${mirror%/}
    [[ -n $mirror ]] || mirror=http://deb.debian.org/debian
    apt=$cache/apt
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    : >"$apt/status"
    local line
    for line in "${sources[@]}"; do
        if [[ $line == *-security* ]]; then
            echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/debian}/debian-security $line"
        else
            echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $line"
        fi
    done >"$apt/sources.list"
    local options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
        -o "Dir::State::Lists=$apt/lists" -o "Dir::State::Status=$apt/status" -o "Dir::Cache=$apt/cache"
        -o "APT::Architecture=$arch" -o "APT::Architectures=$arch" -o APT::Sandbox::User=root -o Debug::NoLocking=1)
    echo "$label: fetching ${packages[0]} for $arch (${sources[0]%% *}, $mirror) into $cache" >&2
    apt-get "${options[@]}" -qq update >&2
    version=$(apt-cache "${options[@]}" policy "${packages[0]}:$arch" | sed -n 's/^ *Candidate: //p')
    [[ -n $version && $version != "(none)" ]] || { echo "$label: no ${packages[0]} for $arch" >&2; return 2; }
    dir=$cache/${version//[^A-Za-z0-9.]/-}
    if [[ -f $dir/.complete ]]; then
        readlink -f "$dir/home"
        return 0
    fi
    work=$cache/.partial
    rm -rf "$work" "$dir"
    mkdir -p "$work/debs" "$work/root"
    (cd "$work/debs" && apt-get "${options[@]}" -qq download "${packages[@]/%/:$arch}" >&2)
    root=$work/root
    for deb in "$work"/debs/*.deb; do
        dpkg -x "$deb" "$root"
    done
    ls -1 "$work/debs" >"$work/packages.txt"
    echo "$label: $(du -shc "$work"/debs/*.deb | tail -1 | cut -f1) downloaded in $((SECONDS - started)) s" >&2
    rm -rf "$work/debs"
    jdk=$root/$home_path
    # Absolute links into the unpacked tree (the JDK's conf -> /etc/java-NN-openjdk/...) become
    # relative: the host resolves links itself, and its /etc is another JDK's or nothing.
    while IFS= read -r link; do
        target=$(readlink "$link")
        if [[ -e $root$target || -L $root$target ]]; then
            ln -sfn "$(realpath -s --relative-to="$(dirname "$link")" "$root$target")" "$link"
        fi
    done < <(find "$root" -type l -lname '/*')
    "$finish" "$root" "$jdk" "$dir/root" || return 2
    ln -s "root/$home_path" "$work/home"
    echo "$version" >"$work/.complete"
    mv "$work" "$dir"
    echo "$label: ready in $((SECONDS - started)) s: $(readlink -f "$dir/home")" >&2
    readlink -f "$dir/home"
}
