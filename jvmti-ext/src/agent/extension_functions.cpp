#include "agent/extension_functions.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "request/requesters.h"

namespace stackreq {

namespace {

using GetExtensionFunctionsFunction = jvmtiError(JNICALL*)(jvmtiEnv*, jint*, jvmtiExtensionFunctionInfo**);
GetExtensionFunctionsFunction g_original = nullptr;

char* copy_string(jvmtiEnv* env, const char* text) {
    unsigned char* memory = nullptr;
    size_t length = std::strlen(text) + 1;
    if (env->Allocate(static_cast<jlong>(length), &memory) != JVMTI_ERROR_NONE) return nullptr;
    std::memcpy(memory, text, length);
    return reinterpret_cast<char*>(memory);
}

struct ParamSpec {
    const char* name;
    jvmtiParamKind kind;
    jvmtiParamTypes base_type;
    jboolean null_ok;
};

struct FunctionSpec {
    jvmtiExtensionFunction function;
    const char* id;
    const char* description;
    const ParamSpec* params;
    jint param_count;
    const jvmtiError* errors;
    jint error_count;
};

// The thread as PR 31059 declares it, by value; a pointer to it (the JEP text) works too (stackreq.h).
const ParamSpec kRequestParams[] = {
    {"thread", JVMTI_KIND_IN, JVMTI_TYPE_JTHREAD, JNI_TRUE},
    {"ucontext", JVMTI_KIND_IN_PTR, JVMTI_TYPE_CVOID, JNI_TRUE},
    {"user_data", JVMTI_KIND_IN, JVMTI_TYPE_JLONG, JNI_FALSE},
};
const jvmtiError kRequestErrors[] = {JVMTI_ERROR_WRONG_PHASE, JVMTI_ERROR_NOT_AVAILABLE,
                                     JVMTI_ERROR_INVALID_THREAD, JVMTI_ERROR_THREAD_NOT_ALIVE,
                                     STACKREQ_ERROR_UNSUPPORTED_OPERATION, JVMTI_ERROR_OUT_OF_MEMORY,
                                     JVMTI_ERROR_UNATTACHED_THREAD};
const jvmtiError kEnableErrors[] = {JVMTI_ERROR_INVALID_ENVIRONMENT};
const jvmtiError kDisableErrors[] = {JVMTI_ERROR_INVALID_ENVIRONMENT, JVMTI_ERROR_NOT_AVAILABLE,
                                     JVMTI_ERROR_OUT_OF_MEMORY};

const FunctionSpec kFunctions[] = {
    {reinterpret_cast<jvmtiExtensionFunction>(stackreq_RequestStackTraceImpl), STACKREQ_ID_REQUEST_STACK_TRACE,
     "Request a jdk.StackTraceRequest event with the stack trace of a thread (stackreq)", kRequestParams, 3,
     kRequestErrors, sizeof(kRequestErrors) / sizeof(kRequestErrors[0])},
    {reinterpret_cast<jvmtiExtensionFunction>(stackreq_EnableRequestStackTraceImpl),
     STACKREQ_ID_ENABLE_REQUEST_STACK_TRACE, "Enable stack trace requests for this environment (stackreq)",
     nullptr, 0, kEnableErrors, 1},
    {reinterpret_cast<jvmtiExtensionFunction>(stackreq_DisableRequestStackTraceImpl),
     STACKREQ_ID_DISABLE_REQUEST_STACK_TRACE,
     "Disable stack trace requests for this environment until it enables them again; flushes (stackreq)",
     nullptr, 0, kDisableErrors, sizeof(kDisableErrors) / sizeof(kDisableErrors[0])},
    {reinterpret_cast<jvmtiExtensionFunction>(stackreq_InitializeRequestStackTraceImpl),
     STACKREQ_ID_INITIALIZE_REQUEST_STACK_TRACE,
     "Prepare stack trace requests (optional; requests work while a recording enables the event) (stackreq)",
     nullptr, 0, kEnableErrors, 1},
};
constexpr jint kFunctionCount = sizeof(kFunctions) / sizeof(kFunctions[0]);

bool fill_info(jvmtiEnv* env, const FunctionSpec& spec, jvmtiExtensionFunctionInfo* info) {
    std::memset(info, 0, sizeof(*info));
    info->func = spec.function;
    info->id = copy_string(env, spec.id);
    info->short_description = copy_string(env, spec.description);
    if (info->id == nullptr || info->short_description == nullptr) return false;
    info->param_count = spec.param_count;
    if (spec.param_count > 0) {
        unsigned char* memory = nullptr;
        if (env->Allocate(sizeof(jvmtiParamInfo) * spec.param_count, &memory) != JVMTI_ERROR_NONE) return false;
        info->params = reinterpret_cast<jvmtiParamInfo*>(memory);
        for (jint i = 0; i < spec.param_count; i++) {
            info->params[i].name = copy_string(env, spec.params[i].name);
            info->params[i].kind = spec.params[i].kind;
            info->params[i].base_type = spec.params[i].base_type;
            info->params[i].null_ok = spec.params[i].null_ok;
        }
    }
    info->error_count = spec.error_count;
    unsigned char* errors = nullptr;
    if (env->Allocate(sizeof(jvmtiError) * spec.error_count, &errors) != JVMTI_ERROR_NONE) return false;
    std::memcpy(errors, spec.errors, sizeof(jvmtiError) * spec.error_count);
    info->errors = reinterpret_cast<jvmtiError*>(errors);
    return true;
}

// The caller's return address tells which library looked the functions up for env: the requester
// of env's requests (requesters.h).
jvmtiError JNICALL get_extension_functions_with_stackreq(jvmtiEnv* env, jint* count_ptr,
                                                         jvmtiExtensionFunctionInfo** extensions_ptr) {
    if (count_ptr == nullptr || extensions_ptr == nullptr) return JVMTI_ERROR_NULL_POINTER;
    Requesters::note_lookup(env, reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
    jint count = 0;
    jvmtiExtensionFunctionInfo* original = nullptr;
    jvmtiError error = g_original(env, &count, &original);
    if (error != JVMTI_ERROR_NONE) return error;
    unsigned char* memory = nullptr;
    error = env->Allocate(sizeof(jvmtiExtensionFunctionInfo) * (count + kFunctionCount), &memory);
    if (error != JVMTI_ERROR_NONE) return error;
    auto* all = reinterpret_cast<jvmtiExtensionFunctionInfo*>(memory);
    // The VM's entries are moved, not copied: their strings now belong to the new array.
    if (count > 0) std::memcpy(all, original, sizeof(jvmtiExtensionFunctionInfo) * count);
    if (original != nullptr) env->Deallocate(reinterpret_cast<unsigned char*>(original));
    for (jint i = 0; i < kFunctionCount; i++) {
        if (!fill_info(env, kFunctions[i], &all[count + i])) return JVMTI_ERROR_OUT_OF_MEMORY;
    }
    *count_ptr = count + kFunctionCount;
    *extensions_ptr = all;
    return JVMTI_ERROR_NONE;
}

}  // namespace

bool find_vm_functions(jvmtiEnv* env, stackreq_functions* out) {
    // Once the table is wrapped the list also has stackreq's ids; it is wrapped only after the
    // VM's own list was found without them.
    if (g_original != nullptr) return false;
    stackreq_request_functions listed{};
    if (stackreq_find_request_functions(env, &listed) != JVMTI_ERROR_NONE) return false;
    out->request_stack_trace = listed.request_stack_trace;
    out->enable_request_stack_trace = listed.enable_request_stack_trace;
    out->disable_request_stack_trace = listed.disable_request_stack_trace;
    out->vm_native = 1;
    return true;
}

bool install_extension_functions(jvmtiEnv* env) {
    auto* table = const_cast<jvmtiInterface_1*>(env->functions);
    if (table->GetExtensionFunctions == get_extension_functions_with_stackreq) return true;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = reinterpret_cast<uintptr_t>(&table->GetExtensionFunctions) & ~static_cast<uintptr_t>(page - 1);
    uintptr_t end = reinterpret_cast<uintptr_t>(&table->GetExtensionFunctions + 1);
    size_t length = ((end - start) + page - 1) & ~static_cast<uintptr_t>(page - 1);
    // The table lives in libjvm's data; it may be read-only after relocation.
    if (mprotect(reinterpret_cast<void*>(start), length, PROT_READ | PROT_WRITE) != 0) return false;
    g_original = table->GetExtensionFunctions;
    table->GetExtensionFunctions = get_extension_functions_with_stackreq;
    return true;
}

ExtensionMode setup_extension_functions(jvmtiEnv* env, bool register_ids, stackreq_functions* vm_functions) {
    if (find_vm_functions(env, vm_functions)) return ExtensionMode::kVmNative;
    if (!register_ids) return ExtensionMode::kNotRegistered;
    return install_extension_functions(env) ? ExtensionMode::kRegistered : ExtensionMode::kFailed;
}

}  // namespace stackreq

extern "C" JNIEXPORT jvmtiError JNICALL stackreq_get_functions(jvmtiEnv* env, stackreq_functions* out) {
    if (out == nullptr) return JVMTI_ERROR_NULL_POINTER;
    if (env == nullptr) return JVMTI_ERROR_INVALID_ENVIRONMENT;
    if (stackreq::find_vm_functions(env, out)) return JVMTI_ERROR_NONE;
    out->request_stack_trace = stackreq_RequestStackTraceImpl;
    out->enable_request_stack_trace = stackreq_EnableRequestStackTraceImpl;
    out->disable_request_stack_trace = stackreq_DisableRequestStackTraceImpl;
    out->vm_native = 0;
    return JVMTI_ERROR_NONE;
}
