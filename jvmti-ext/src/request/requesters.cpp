#include "request/requesters.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

namespace stackreq {

namespace {

std::mutex g_lookups_mutex;

std::unordered_map<jvmtiEnv*, uintptr_t>& lookups() {
    static std::unordered_map<jvmtiEnv*, uintptr_t> by_env;
    return by_env;
}

uintptr_t lookup_address(jvmtiEnv* env) {
    std::lock_guard<std::mutex> guard(g_lookups_mutex);
    auto found = lookups().find(env);
    return found == lookups().end() ? 0 : found->second;
}

}  // namespace

void Requesters::note_lookup(jvmtiEnv* env, uintptr_t return_address) {
    std::lock_guard<std::mutex> guard(g_lookups_mutex);
    lookups()[env] = return_address;
}

uint32_t Requesters::id_for(const Caller& caller) {
    const auto key = std::make_pair(caller.env, caller.return_address);
    auto known = by_caller_.find(key);
    if (known != by_caller_.end()) return known->second;
    uint32_t id = id_of_library_at(lookup_address(caller.env));
    if (id == 0) id = id_of_library_at(caller.return_address);
    by_caller_.emplace(key, id);
    return id;
}

uint32_t Requesters::id_of_library_at(uintptr_t address) {
    Dl_info info{};
    if (address == 0 || dladdr(reinterpret_cast<void*>(address), &info) == 0 || info.dli_fname == nullptr) return 0;
    const char* slash = std::strrchr(info.dli_fname, '/');
    std::string name = slash != nullptr ? slash + 1 : info.dli_fname;
    auto named = by_name_.find(name);
    if (named != by_name_.end()) return named->second;
    names_.push_back(name);
    const uint32_t id = static_cast<uint32_t>(names_.size());
    by_name_.emplace(name, id);
    return id;
}

}  // namespace stackreq
