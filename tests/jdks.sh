# Sourced by tests/run, tests/validate and tests/bench/run: where the JDKs are, how many build
# jobs this machine takes, and the line that dates a table of results.
#
# require_jdk FEATURE CALLER prints the home of a JDK of that feature release: $JDK<FEATURE>_HOME
# when set, else the first /usr/lib/jvm/*/release that says JAVA_VERSION="FEATURE, else the
# project's own from Debian's suites (tests/jdk.sh: 8, 11, 21, 27 and 28, fetched into
# /var/cache/stackreq or ~/.cache/stackreq on first use, since bookworm has none of them). When there is none it prints one line saying what to set
# and returns 2; command substitution hides an exit, so call it as
#   jdk17=$(require_jdk 17 tests/run) || exit 2
require_jdk() {
    local feature=$1 caller=$2 variable="JDK$1_HOME" release home
    if [[ -n ${!variable:-} ]]; then
        if [[ -x ${!variable}/bin/javac ]]; then
            echo "${!variable}"
            return 0
        fi
        echo "$caller: $variable=${!variable} is not a JDK (no bin/javac): set $variable to a JDK $feature home" >&2
        return 2
    fi
    for release in /usr/lib/jvm/*/release; do
        home=$(readlink -f "${release%/release}")
        if grep -qE "^JAVA_VERSION=\"$feature[.\"]" "$release" && [[ -x $home/bin/javac ]]; then
            echo "$home"
            return 0
        fi
    done
    if [[ $feature =~ ^(8|11|21|27|28)$ ]]; then
        if home=$(bash "$(dirname "${BASH_SOURCE[0]}")/jdk.sh" "$feature"); then
            echo "$home"
            return 0
        fi
        echo "$caller: no JDK $feature in /usr/lib/jvm and tests/jdk.sh could not fetch one: set $variable" >&2
        return 2
    fi
    echo "$caller: no JDK $feature in /usr/lib/jvm: set $variable to the home of a JDK $feature" >&2
    return 2
}

build_jobs=$(nproc)

# measured_on COMMAND ARGS... prints "Measured on commit 1a2b3c4, 2026-11-23 16:40 UTC: `COMMAND
# ARGS`", saying so when the work tree has uncommitted changes: the first line of every results
# table, so that a table pasted into docs/ carries where and when it was measured.
measured_on() {
    local root commit changes=""
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null) || commit="(unknown: no git)"
    [[ -n $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]] &&
        changes=" with uncommitted changes"
    echo "Measured on commit $commit$changes, $(date -u '+%Y-%m-%d %H:%M') UTC: \`$*\`"
}
