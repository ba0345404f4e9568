// Maps a walk's raw frames (jmethodID, bci) to the id of the stack they resolved to, so a
// stack seen before is stored without resolving a frame again: profiles repeat stacks, and
// resolving is most of the emitter's cost. A jmethodID is never reused (HotSpot keeps it
// after its class is unloaded), so a raw stack always resolves to the same frames.
// Bounded (option stack-cache=N): when full it starts over, which costs only re-resolving.
// Emitter context only.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "request_ring.h"

namespace stackreq {

class WalkedStackCache {
public:
    void set_capacity(size_t entries) { capacity_ = entries; }
    // The stack id remembered for these frames, or 0.
    uint64_t find(const CallFrame* frames, int32_t count, bool truncated) const;
    void remember(const CallFrame* frames, int32_t count, bool truncated, uint64_t stack_id);
    size_t size() const { return by_hash_.size(); }
    void clear() { by_hash_.clear(); }

private:
    struct Entry {
        uint64_t stack_id;
        bool truncated;
        std::vector<CallFrame> frames;
    };
    static uint64_t hash(const CallFrame* frames, int32_t count, bool truncated);
    static bool same(const Entry& entry, const CallFrame* frames, int32_t count, bool truncated);

    // One entry per hash: a colliding stack is simply not cached and resolves every time.
    std::unordered_map<uint64_t, Entry> by_hash_;
    size_t capacity_ = 0;  // Emitter::start sets it from the stack-cache= option
};

}  // namespace stackreq
