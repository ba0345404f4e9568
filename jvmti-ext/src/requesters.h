// Who requested: the library a RequestStackTrace call came from, named by its file name
// ("libjavaProfiler.so"), so that two profilers in one JVM each find their own events (their
// user_data overlap). The request path records only the call's return address (RequestSlot::
// caller_pc); the emitter names it here with dladdr. stackreq's addition to the JDK's event.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace stackreq {

class Requesters {
public:
    // Normal context, emitter only. The requester id of a call's return address: 1, 2, ... in
    // order of first appearance, stable for the life of the agent (a chunk's constant pool keys);
    // 0 when the address is in no loaded object.
    uint32_t id_for(uintptr_t caller_pc);
    // names()[id - 1] is the name of requester id.
    const std::vector<std::string>& names() const { return names_; }

private:
    std::unordered_map<uintptr_t, uint32_t> by_pc_;
    std::unordered_map<std::string, uint32_t> by_name_;
    std::vector<std::string> names_;
};

}  // namespace stackreq
