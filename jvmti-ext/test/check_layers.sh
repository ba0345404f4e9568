#!/usr/bin/env bash
# The include layers of jvmti-ext/src (see src/README.md), checked on every build's unit tests:
#   - the signal-time folders (request, walk, native_unwind, hotspot) include only each other and
#     agent/agent_state.h, agent/options.h, agent/log.h;
#   - chunk_writer includes only itself and request/ (the event and counters it writes);
#   - emitter and jdk_hooks include no agent/ file but those three, and emitter nothing of jdk_hooks;
#   - agent/ may include everything.
# Prints every include that breaks a rule and fails when there is one.
#   check_layers.sh SRC_DIR
set -euo pipefail
src=${1:?usage: check_layers.sh SRC_DIR}
shared='agent/(agent_state|options|log)\.h'
declare -A allowed=(
    [request]="^(request|walk|native_unwind|hotspot)/|^$shared\$"
    [walk]="^(request|walk|native_unwind|hotspot)/|^$shared\$"
    [native_unwind]="^(request|walk|native_unwind|hotspot)/|^$shared\$"
    [hotspot]="^(request|walk|native_unwind|hotspot)/|^$shared\$"
    [chunk_writer]="^(chunk_writer|request)/"
    [emitter]="^(request|walk|native_unwind|hotspot|chunk_writer|emitter)/|^$shared\$"
    [jdk_hooks]="^(request|walk|native_unwind|hotspot|chunk_writer|emitter|jdk_hooks)/|^$shared\$"
    [agent]="."
)
broken=0
for folder in "$src"/*/; do
    name=$(basename "$folder")
    rule=${allowed[$name]:-}
    if [[ -z $rule ]]; then
        echo "check_layers: folder src/$name has no rule" >&2
        broken=1
        continue
    fi
    while IFS=: read -r file line included; do
        [[ $included =~ / ]] || continue   # the public header and system headers
        if ! [[ $included =~ $rule ]]; then
            echo "check_layers: ${file#"$src"/}:$line includes $included, outside the layers src/$name may use" >&2
            broken=1
        fi
    done < <(grep -Hn '^#include "' "$folder"* | sed -E 's/^([^:]*):([0-9]+):#include "([^"]*)".*/\1:\2:\3/')
done
if [[ $broken == 0 ]]; then echo "check_layers: every include follows the layers"; fi
exit $broken
