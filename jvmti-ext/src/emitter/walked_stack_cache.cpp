#include "emitter/walked_stack_cache.h"

#include "emitter/word_hash.h"

namespace stackreq {

uint64_t WalkedStackCache::hash(const CallFrame* frames, int32_t count, const uintptr_t* native_pcs,
                                uint32_t native_count, bool truncated) {
    // FNV-1a over 64-bit words, with a final avalanche: fast, and the map's own hashing is
    // the identity for integers, so the low bits must already be mixed.
    WordHash words(static_cast<uint64_t>(truncated));
    for (uint32_t i = 0; i < native_count; i++) words.add(native_pcs[i]);
    words.add(native_count);
    for (int32_t i = 0; i < count; i++) {
        words.add(reinterpret_cast<uintptr_t>(frames[i].method))
            .add(static_cast<uint32_t>(frames[i].bci_or_marker))
            .add(static_cast<uint8_t>(frames[i].type));
    }
    uint64_t h = words.value();
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

bool WalkedStackCache::same(const Entry& entry, const CallFrame* frames, int32_t count, const uintptr_t* native_pcs,
                            uint32_t native_count, bool truncated) {
    if (entry.truncated != truncated || entry.frames.size() != static_cast<size_t>(count) ||
        entry.native_pcs.size() != native_count) {
        return false;
    }
    for (uint32_t i = 0; i < native_count; i++) {
        if (entry.native_pcs[i] != native_pcs[i]) return false;
    }
    for (int32_t i = 0; i < count; i++) {
        if (entry.frames[i].method != frames[i].method || entry.frames[i].bci_or_marker != frames[i].bci_or_marker ||
            entry.frames[i].type != frames[i].type) {
            return false;
        }
    }
    return true;
}

uint64_t WalkedStackCache::find(const CallFrame* frames, int32_t count, const uintptr_t* native_pcs,
                                uint32_t native_count, bool truncated) const {
    auto found = by_hash_.find(hash(frames, count, native_pcs, native_count, truncated));
    if (found == by_hash_.end() || !same(found->second, frames, count, native_pcs, native_count, truncated)) return 0;
    return found->second.stack_id;
}

void WalkedStackCache::remember(const CallFrame* frames, int32_t count, const uintptr_t* native_pcs,
                                uint32_t native_count, bool truncated, uint64_t stack_id) {
    if (capacity_ == 0) return;
    if (by_hash_.size() >= capacity_) by_hash_.clear();
    by_hash_.emplace(hash(frames, count, native_pcs, native_count, truncated),
                     Entry{stack_id, truncated, std::vector<CallFrame>(frames, frames + count),
                           std::vector<uintptr_t>(native_pcs, native_pcs + native_count)});
}

}  // namespace stackreq
