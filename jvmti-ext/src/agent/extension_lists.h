// The lists GetExtensionFunctions and GetExtensionEvents return belong to the caller, who must
// Deallocate every string and array in them: one routine for both kinds of list.
#pragma once

#include <type_traits>

#include "stackreq.h"

namespace stackreq {

template <typename ExtensionInfo>
void free_extension_list(jvmtiEnv* jvmti, jint count, ExtensionInfo* list) {
    for (jint i = 0; i < count; i++) {
        for (jint p = 0; p < list[i].param_count; p++) stackreq_deallocate(jvmti, list[i].params[p].name);
        stackreq_deallocate(jvmti, list[i].params);
        if constexpr (std::is_same_v<ExtensionInfo, jvmtiExtensionFunctionInfo>) {
            stackreq_deallocate(jvmti, list[i].errors);
        }
        stackreq_deallocate(jvmti, list[i].id);
        stackreq_deallocate(jvmti, list[i].short_description);
    }
    stackreq_deallocate(jvmti, list);
}

}  // namespace stackreq
