// Maps a walk's raw frames (jmethodID, bci, type) and, with native=on, its native PCs to the id of
// the stack they resolved to, so a stack seen before is stored without resolving a frame again:
// profiles repeat stacks, and resolving is most of the emitter's cost. A jmethodID is never
// reused (HotSpot keeps it after its class is unloaded), so a raw stack always resolves to the
// same frames; a native PC is named once and for good (SlotResolver's PC -> name map), so the
// same holds for it.
// Bounded (option stack-cache=N): when full it starts over, which costs only re-resolving.
// Emitter context only.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "request/request_ring.h"

namespace stackreq {

class WalkedStackCache {
public:
    void set_capacity(size_t entries) { capacity_ = entries; }
    // The stack id remembered for these frames (native PCs above them, top first), or 0.
    uint64_t find(const CallFrame* frames, int32_t count, const uintptr_t* native_pcs, uint32_t native_count,
                  bool truncated) const;
    void remember(const CallFrame* frames, int32_t count, const uintptr_t* native_pcs, uint32_t native_count,
                  bool truncated, uint64_t stack_id);
    // Java frames only.
    uint64_t find(const CallFrame* frames, int32_t count, bool truncated) const {
        return find(frames, count, nullptr, 0, truncated);
    }
    void remember(const CallFrame* frames, int32_t count, bool truncated, uint64_t stack_id) {
        remember(frames, count, nullptr, 0, truncated, stack_id);
    }
    size_t size() const { return by_hash_.size(); }
    void clear() { by_hash_.clear(); }

private:
    struct Entry {
        uint64_t stack_id;
        bool truncated;
        std::vector<CallFrame> frames;
        std::vector<uintptr_t> native_pcs;
    };
    static uint64_t hash(const CallFrame* frames, int32_t count, const uintptr_t* native_pcs, uint32_t native_count,
                         bool truncated);
    static bool same(const Entry& entry, const CallFrame* frames, int32_t count, const uintptr_t* native_pcs,
                     uint32_t native_count, bool truncated);

    // One entry per hash: a colliding stack is simply not cached and resolves every time.
    std::unordered_map<uint64_t, Entry> by_hash_;
    size_t capacity_ = 0;  // Emitter::start sets it from the stack-cache= option
};

}  // namespace stackreq
