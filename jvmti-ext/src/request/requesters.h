// Who requested: the library an agent's RequestStackTrace calls come from, named by its file name
// ("libjavaProfiler.so"), so that two profilers in one JVM each find their own events (their
// user_data overlap). stackreq's addition to the JDK's event.
//
// A request records only its Caller (signal-safe: two words). The library is the one that looked
// the functions up for that environment (stackreq's GetExtensionFunctions notes the return address
// of each call, note_lookup), else, for an environment that never did (stackreq_get_functions), the
// library the request's return address lies in; a request's own return address alone is not
// enough: a JNI method that ends in `return request(...)` tail-calls, and its return address is
// then in the JVM's generated code.
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stackreq {

struct Caller {
    jvmtiEnv* env;
    uintptr_t return_address;
};

class Requesters {
public:
    // Normal context, any thread: env's GetExtensionFunctions was called from return_address.
    static void note_lookup(jvmtiEnv* env, uintptr_t return_address);

    // Normal context, emitter only. The requester id of a request: 1, 2, ... in order of first
    // appearance, stable for the life of the agent (a chunk's constant-pool keys); 0 when unknown.
    uint32_t id_for(const Caller& caller);
    // names()[id - 1] is the name of requester id.
    const std::vector<std::string>& names() const { return names_; }

private:
    uint32_t id_of_library_at(uintptr_t address);

    std::map<std::pair<jvmtiEnv*, uintptr_t>, uint32_t> by_caller_;
    std::unordered_map<std::string, uint32_t> by_name_;
    std::vector<std::string> names_;
};

}  // namespace stackreq
