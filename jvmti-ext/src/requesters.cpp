#include "requesters.h"

#include <dlfcn.h>

#include <cstring>

namespace stackreq {

uint32_t Requesters::id_for(uintptr_t caller_pc) {
    if (caller_pc == 0) return 0;
    auto known = by_pc_.find(caller_pc);
    if (known != by_pc_.end()) return known->second;
    uint32_t id = 0;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(caller_pc), &info) != 0 && info.dli_fname != nullptr) {
        const char* slash = std::strrchr(info.dli_fname, '/');
        std::string name = slash != nullptr ? slash + 1 : info.dli_fname;
        auto named = by_name_.find(name);
        if (named != by_name_.end()) {
            id = named->second;
        } else {
            names_.push_back(name);
            id = static_cast<uint32_t>(names_.size());
            by_name_.emplace(name, id);
        }
    }
    by_pc_.emplace(caller_pc, id);
    return id;
}

}  // namespace stackreq
