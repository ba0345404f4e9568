// With a fake JVMTI function table: the agent forwards to VM-native functions when the VM lists
// them (and stackreq then registers nothing), and otherwise stackreq's three ids appear in
// GetExtensionFunctions with memory the caller can Deallocate. stackreq.h's header-only lookup,
// compiled as C++ and as C, finds what is listed and frees everything the list allocated.
#include <cstdlib>
#include <cstring>
#include <set>

#include "agent/extension_functions.h"
#include "agent/extension_lists.h"
#include "check.h"
#include "stackreq.h"

using namespace stackreq;

extern "C" jvmtiError extension_lookup_from_c(jvmtiEnv* env, stackreq_RequestStackTrace* request,
                                              stackreq_EnableRequestStackTrace* enable,
                                              stackreq_DisableRequestStackTrace* disable);

namespace {

std::set<void*> g_live_allocations;
bool g_vm_lists_functions = false;
bool g_vm_lists_only_request = false;

jvmtiError JNICALL fake_allocate(jvmtiEnv*, jlong size, unsigned char** out) {
    *out = static_cast<unsigned char*>(std::malloc(size > 0 ? size : 1));
    g_live_allocations.insert(*out);
    return JVMTI_ERROR_NONE;
}

jvmtiError JNICALL fake_deallocate(jvmtiEnv*, unsigned char* memory) {
    if (memory == nullptr) return JVMTI_ERROR_NONE;
    CHECK(g_live_allocations.erase(memory) == 1);  // only memory from Allocate
    std::free(memory);
    return JVMTI_ERROR_NONE;
}

jvmtiError JNICALL vm_request(jvmtiEnv*, jthread*, void*, jlong) { return JVMTI_ERROR_NONE; }
jvmtiError JNICALL vm_enable(jvmtiEnv*) { return JVMTI_ERROR_NONE; }
jvmtiError JNICALL vm_disable(jvmtiEnv*) { return JVMTI_ERROR_NONE; }
jvmtiError JNICALL vm_other(jvmtiEnv*, ...) { return JVMTI_ERROR_NONE; }

char* allocated_copy(jvmtiEnv* env, const char* text) {
    unsigned char* memory = nullptr;
    fake_allocate(env, std::strlen(text) + 1, &memory);
    std::strcpy(reinterpret_cast<char*>(memory), text);
    return reinterpret_cast<char*>(memory);
}

void fill(jvmtiEnv* env, jvmtiExtensionFunctionInfo* info, jvmtiExtensionFunction function, const char* id) {
    std::memset(info, 0, sizeof(*info));
    info->func = function;
    info->id = allocated_copy(env, id);
    info->short_description = allocated_copy(env, "fake VM function");
}

// The VM's own list: one unrelated extension, plus the three JEP functions when the fake VM
// "ships" the feature.
jvmtiError JNICALL fake_get_extension_functions(jvmtiEnv* env, jint* count, jvmtiExtensionFunctionInfo** out) {
    jint n = g_vm_lists_functions ? 4 : g_vm_lists_only_request ? 2 : 1;
    unsigned char* memory = nullptr;
    fake_allocate(env, sizeof(jvmtiExtensionFunctionInfo) * n, &memory);
    auto* list = reinterpret_cast<jvmtiExtensionFunctionInfo*>(memory);
    fill(env, &list[0], vm_other, "com.sun.hotspot.functions.IsClassUnloadingEnabled");
    // Parameters and errors too, so that the lookup must free every kind of allocation.
    unsigned char* params = nullptr;
    fake_allocate(env, sizeof(jvmtiParamInfo), &params);
    std::memset(params, 0, sizeof(jvmtiParamInfo));
    list[0].params = reinterpret_cast<jvmtiParamInfo*>(params);
    list[0].params[0].name = allocated_copy(env, "is_enabled");
    list[0].param_count = 1;
    unsigned char* errors = nullptr;
    fake_allocate(env, sizeof(jvmtiError), &errors);
    list[0].errors = reinterpret_cast<jvmtiError*>(errors);
    list[0].errors[0] = JVMTI_ERROR_NULL_POINTER;
    list[0].error_count = 1;
    if (g_vm_lists_only_request) {
        fill(env, &list[1], reinterpret_cast<jvmtiExtensionFunction>(vm_request), STACKREQ_ID_REQUEST_STACK_TRACE);
    }
    if (g_vm_lists_functions) {
        fill(env, &list[1], reinterpret_cast<jvmtiExtensionFunction>(vm_request), STACKREQ_ID_REQUEST_STACK_TRACE);
        fill(env, &list[2], reinterpret_cast<jvmtiExtensionFunction>(vm_enable),
             STACKREQ_ID_ENABLE_REQUEST_STACK_TRACE);
        fill(env, &list[3], reinterpret_cast<jvmtiExtensionFunction>(vm_disable),
             STACKREQ_ID_DISABLE_REQUEST_STACK_TRACE);
    }
    *count = n;
    *out = list;
    return JVMTI_ERROR_NONE;
}

// The list GetExtensionFunctions gives env (it must succeed, with expected entries: the VM's one
// extension and its three JEP functions, or stackreq's four), freed with free_extension_list when it
// goes out of scope.
struct ListedFunctions {
    ListedFunctions(jvmtiEnv* listing_env, jint expected) : env(listing_env) {
        CHECK(env->GetExtensionFunctions(&count, &list) == JVMTI_ERROR_NONE);
        CHECK(count == expected);
    }
    ~ListedFunctions() { free_extension_list(env, count, list); }

    // How many entries have id; *function is the last one's.
    int count_id(const char* id, jvmtiExtensionFunction* function) const {
        int found = 0;
        for (jint i = 0; i < count; i++) {
            if (std::strcmp(list[i].id, id) == 0) {
                found++;
                *function = list[i].func;
            }
        }
        return found;
    }

    jvmtiEnv* env;
    jint count = 0;
    jvmtiExtensionFunctionInfo* list = nullptr;
};

jvmtiError JNICALL failing_get_extension_functions(jvmtiEnv*, jint*, jvmtiExtensionFunctionInfo**) {
    return JVMTI_ERROR_WRONG_PHASE;
}

// Static so the table outlives the test, like libjvm's; one per scenario.
jvmtiInterface_1 g_native_table;
jvmtiInterface_1 g_plain_table;
jvmtiInterface_1 g_lookup_table;

// An environment on table, whose memory and extension-function calls go to the fakes.
jvmtiEnv* fake_env(jvmtiInterface_1* table, _jvmtiEnv* storage) {
    table->Allocate = fake_allocate;
    table->Deallocate = fake_deallocate;
    table->GetExtensionFunctions = fake_get_extension_functions;
    storage->functions = table;
    return storage;
}

// An environment on table whose VM lists the JEP's functions or not, after setup_extension_functions has
// chosen mode for it and filled *vm.
jvmtiEnv* set_up(bool vm_lists_functions, jvmtiInterface_1* table, _jvmtiEnv* storage, stackreq_functions* vm,
                 ExtensionMode mode) {
    g_vm_lists_functions = vm_lists_functions;
    jvmtiEnv* env = fake_env(table, storage);
    CHECK(setup_extension_functions(env, true, vm) == mode);
    return env;
}

using Lookup = jvmtiError (*)(jvmtiEnv*, stackreq_RequestStackTrace*, stackreq_EnableRequestStackTrace*,
                              stackreq_DisableRequestStackTrace*);

jvmtiError lookup_from_cpp(jvmtiEnv* env, stackreq_RequestStackTrace* request, stackreq_EnableRequestStackTrace* enable,
                           stackreq_DisableRequestStackTrace* disable) {
    return stackreq_find_extension_functions(env, request, enable, disable);
}

void header_lookup_finds_what_is_listed(Lookup lookup) {
    _jvmtiEnv env_storage{};
    jvmtiEnv* env = fake_env(&g_lookup_table, &env_storage);
    stackreq_RequestStackTrace request = nullptr;
    stackreq_EnableRequestStackTrace enable = nullptr;
    stackreq_DisableRequestStackTrace disable = nullptr;

    g_vm_lists_functions = true;
    CHECK(lookup(env, &request, &enable, &disable) == JVMTI_ERROR_NONE);
    CHECK(reinterpret_cast<void*>(request) == reinterpret_cast<void*>(vm_request));
    CHECK(reinterpret_cast<void*>(enable) == reinterpret_cast<void*>(vm_enable));
    CHECK(reinterpret_cast<void*>(disable) == reinterpret_cast<void*>(vm_disable));
    CHECK(g_live_allocations.empty());

    // PR 31059's revision lists RequestStackTrace alone: found, Enable and Disable optional.
    g_vm_lists_functions = false;
    g_vm_lists_only_request = true;
    CHECK(lookup(env, &request, &enable, &disable) == JVMTI_ERROR_NONE);
    CHECK(reinterpret_cast<void*>(request) == reinterpret_cast<void*>(vm_request));
    CHECK(enable == nullptr);
    CHECK(disable == nullptr);
    CHECK(g_live_allocations.empty());
    g_vm_lists_only_request = false;

    CHECK(lookup(env, &request, &enable, &disable) == JVMTI_ERROR_NOT_AVAILABLE);
    CHECK(request == nullptr);
    CHECK(g_live_allocations.empty());

    g_lookup_table.GetExtensionFunctions = failing_get_extension_functions;
    request = vm_request;
    CHECK(lookup(env, &request, &enable, &disable) == JVMTI_ERROR_WRONG_PHASE);
    CHECK(request == nullptr);
}

void request_functions_say_what_is_missing() {
    _jvmtiEnv env_storage{};
    jvmtiEnv* env = fake_env(&g_lookup_table, &env_storage);
    g_lookup_table.GetExtensionFunctions = fake_get_extension_functions;
    stackreq_request_functions found{};
    char missing[128];

    g_vm_lists_functions = false;
    g_vm_lists_only_request = true;
    CHECK(stackreq_find_request_functions(env, &found) == JVMTI_ERROR_NONE);
    CHECK(reinterpret_cast<void*>(found.request_stack_trace) == reinterpret_cast<void*>(vm_request));
    CHECK(std::strcmp(stackreq_describe_missing(&found, missing, sizeof(missing)),
                      "EnableRequestStackTrace, DisableRequestStackTrace, InitializeRequestStackTrace") == 0);
    // Cut to fit, always terminated.
    CHECK(std::strcmp(stackreq_describe_missing(&found, missing, 12), "EnableReque") == 0);
    g_vm_lists_only_request = false;

    CHECK(stackreq_find_request_functions(env, &found) == JVMTI_ERROR_NOT_AVAILABLE);
    CHECK(found.request_stack_trace == nullptr);
    CHECK(std::strncmp(stackreq_describe_missing(&found, missing, sizeof(missing)), "RequestStackTrace, ", 19) == 0);
    CHECK(g_live_allocations.empty());
}

void vm_native_functions_are_forwarded() {
    _jvmtiEnv env_storage{};
    stackreq_functions vm{};
    jvmtiEnv* env = set_up(true, &g_native_table, &env_storage, &vm, ExtensionMode::kVmNative);
    CHECK(vm.vm_native == 1);
    CHECK(reinterpret_cast<void*>(vm.request_stack_trace) == reinterpret_cast<void*>(vm_request));
    CHECK(reinterpret_cast<void*>(vm.enable_request_stack_trace) == reinterpret_cast<void*>(vm_enable));
    CHECK(reinterpret_cast<void*>(vm.disable_request_stack_trace) == reinterpret_cast<void*>(vm_disable));
    // Nothing registered: the table is untouched and the list has each id exactly once.
    CHECK(g_native_table.GetExtensionFunctions == fake_get_extension_functions);
    {
        ListedFunctions listed(env, 4);
        jvmtiExtensionFunction function = nullptr;
        CHECK(listed.count_id(STACKREQ_ID_REQUEST_STACK_TRACE, &function) == 1);
        CHECK(reinterpret_cast<void*>(function) == reinterpret_cast<void*>(vm_request));
    }

    stackreq_functions looked_up{};
    CHECK(stackreq_get_functions(env, &looked_up) == JVMTI_ERROR_NONE);
    CHECK(looked_up.vm_native == 1);
    CHECK(reinterpret_cast<void*>(looked_up.request_stack_trace) == reinterpret_cast<void*>(vm_request));
    CHECK(g_live_allocations.empty());
}

void stackreq_functions_are_registered() {
    _jvmtiEnv env_storage{};
    stackreq_functions vm{};
    jvmtiEnv* env = set_up(false, &g_plain_table, &env_storage, &vm, ExtensionMode::kRegistered);
    CHECK(g_plain_table.GetExtensionFunctions != fake_get_extension_functions);
    // Another environment sharing the table (as every HotSpot environment does) sees the ids.
    _jvmtiEnv other_storage{};
    other_storage.functions = &g_plain_table;
    {
        ListedFunctions listed(&other_storage, 5);
        jvmtiExtensionFunction function = nullptr;
        CHECK(listed.count_id("com.sun.hotspot.functions.IsClassUnloadingEnabled", &function) == 1);
        CHECK(listed.count_id(STACKREQ_ID_REQUEST_STACK_TRACE, &function) == 1);
        CHECK(reinterpret_cast<void*>(function) == reinterpret_cast<void*>(stackreq_RequestStackTraceImpl));
        CHECK(listed.count_id(STACKREQ_ID_ENABLE_REQUEST_STACK_TRACE, &function) == 1);
        CHECK(listed.count_id(STACKREQ_ID_DISABLE_REQUEST_STACK_TRACE, &function) == 1);
        CHECK(listed.count_id(STACKREQ_ID_INITIALIZE_REQUEST_STACK_TRACE, &function) == 1);
        CHECK(reinterpret_cast<void*>(function) == reinterpret_cast<void*>(stackreq_InitializeRequestStackTraceImpl));
        for (jint i = 0; i < listed.count; i++) {
            const jvmtiExtensionFunctionInfo& info = listed.list[i];
            if (std::strcmp(info.id, STACKREQ_ID_REQUEST_STACK_TRACE) == 0) {
                CHECK(info.param_count == 3);
                CHECK(std::strcmp(info.params[2].name, "user_data") == 0);
                CHECK(info.params[2].base_type == JVMTI_TYPE_JLONG);
                CHECK(info.params[0].kind == JVMTI_KIND_IN && info.params[0].base_type == JVMTI_TYPE_JTHREAD);
                CHECK(info.error_count > 0);
            }
            if (std::strcmp(info.id, STACKREQ_ID_INITIALIZE_REQUEST_STACK_TRACE) == 0) {
                CHECK(info.param_count == 0);
                CHECK(info.error_count == 1 && info.errors[0] == JVMTI_ERROR_INVALID_ENVIRONMENT);
            }
        }
    }
    CHECK(g_live_allocations.empty());  // every string and array came from Allocate

    stackreq_functions looked_up{};
    CHECK(stackreq_get_functions(env, &looked_up) == JVMTI_ERROR_NONE);
    CHECK(looked_up.vm_native == 0);
    CHECK(reinterpret_cast<void*>(looked_up.request_stack_trace) ==
          reinterpret_cast<void*>(stackreq_RequestStackTraceImpl));
    CHECK(g_live_allocations.empty());
    CHECK(stackreq_get_functions(env, nullptr) == JVMTI_ERROR_NULL_POINTER);
    CHECK(stackreq_get_functions(nullptr, &looked_up) == JVMTI_ERROR_INVALID_ENVIRONMENT);
}

}  // namespace

int main() {
    header_lookup_finds_what_is_listed(lookup_from_cpp);
    header_lookup_finds_what_is_listed(extension_lookup_from_c);
    request_functions_say_what_is_missing();
    vm_native_functions_are_forwarded();
    stackreq_functions_are_registered();
    std::printf("extension_lookup_test: ok\n");
    return 0;
}
