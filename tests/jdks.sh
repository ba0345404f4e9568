# Sourced by tests/run, tests/validate and tests/bench/run: where the JDKs are, and how many
# build jobs this machine takes.
#
# require_jdk FEATURE CALLER prints the home of a JDK of that feature release: $JDK<FEATURE>_HOME
# when set, else the first /usr/lib/jvm/*/release that says JAVA_VERSION="FEATURE. When there is
# none it prints one line saying what to set and returns 2; command substitution hides an exit,
# so call it as  jdk17=$(require_jdk 17 tests/run) || exit 2
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
    echo "$caller: no JDK $feature in /usr/lib/jvm: set $variable to the home of a JDK $feature" >&2
    return 2
}

build_jobs=$(nproc)
