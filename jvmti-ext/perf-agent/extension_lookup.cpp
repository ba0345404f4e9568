#include "extension_lookup.h"

#include <cstring>

namespace stackreq_perf {

namespace {

void deallocate(jvmtiEnv* env, void* memory) {
    if (memory != nullptr) env->Deallocate(static_cast<unsigned char*>(memory));
}

// Every pointer GetExtensionFunctions returns is a separate JVMTI allocation.
void deallocate_infos(jvmtiEnv* env, jvmtiExtensionFunctionInfo* infos, jint count) {
    for (jint i = 0; i < count; i++) {
        jvmtiExtensionFunctionInfo& info = infos[i];
        for (jint p = 0; p < info.param_count; p++) deallocate(env, info.params[p].name);
        deallocate(env, info.params);
        deallocate(env, info.errors);
        deallocate(env, info.id);
        deallocate(env, info.short_description);
    }
    deallocate(env, infos);
}

}  // namespace

jvmtiError find_stack_trace_functions(jvmtiEnv* env, StackTraceFunctions* out, const char** missing) {
    *out = StackTraceFunctions();
    *missing = STACKREQ_ID_REQUEST_STACK_TRACE;
    jint count = 0;
    jvmtiExtensionFunctionInfo* infos = nullptr;
    jvmtiError error = env->GetExtensionFunctions(&count, &infos);
    if (error != JVMTI_ERROR_NONE) return error;
    for (jint i = 0; i < count; i++) {
        const char* id = infos[i].id;
        if (id == nullptr) continue;
        // Extension functions are declared variadic; the ids promise these exact prototypes.
        if (strcmp(id, STACKREQ_ID_REQUEST_STACK_TRACE) == 0) {
            out->request = reinterpret_cast<stackreq_RequestStackTrace>(infos[i].func);
        } else if (strcmp(id, STACKREQ_ID_ENABLE_REQUEST_STACK_TRACE) == 0) {
            out->enable = reinterpret_cast<stackreq_EnableRequestStackTrace>(infos[i].func);
        } else if (strcmp(id, STACKREQ_ID_DISABLE_REQUEST_STACK_TRACE) == 0) {
            out->disable = reinterpret_cast<stackreq_DisableRequestStackTrace>(infos[i].func);
        }
    }
    deallocate_infos(env, infos, count);
    if (out->request == nullptr) return JVMTI_ERROR_NOT_AVAILABLE;
    *missing = STACKREQ_ID_ENABLE_REQUEST_STACK_TRACE;
    if (out->enable == nullptr) return JVMTI_ERROR_NOT_AVAILABLE;
    *missing = STACKREQ_ID_DISABLE_REQUEST_STACK_TRACE;
    if (out->disable == nullptr) return JVMTI_ERROR_NOT_AVAILABLE;
    *missing = nullptr;
    return JVMTI_ERROR_NONE;
}

}  // namespace stackreq_perf
