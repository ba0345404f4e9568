// Per-thread sampling state, found by tid from the signal handler without locks.
// Open addressing with linear probing in a preallocated table. Inserts and removals happen
// in normal context under the caller's lock; the handler only reads (find) and then touches
// its own thread's slot, which no other thread writes while the slot is armed.
#pragma once

#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "event_table.h"

namespace stackreq_perf {

struct ThreadSlot {
    std::atomic<int32_t> tid;     // kFreeTid, kRemovedTid or the owner
    std::atomic<int32_t> armed;   // 1: counters/timer are live and the fields below are set
    int fds[kMaxGroupEvents];     // perf engine: group fds, leader first
    uint64_t ids[kMaxGroupEvents];  // PERF_EVENT_IOC_ID of each fd, to map a group read
    int fd_count;
    timer_t timer;                // cpu-timer engine
    bool has_timer;
    clockid_t cpu_clock;          // cpu-timer engine: the thread's CPU-time clock
    // Written only by the handler on the owning thread once armed (and before, by arm).
    uint64_t previous[kMaxGroupEvents];
};

class ThreadTable {
public:
    static constexpr int32_t kFreeTid = 0;
    static constexpr int32_t kRemovedTid = -1;

    ThreadTable() = default;
    ~ThreadTable();
    ThreadTable(const ThreadTable&) = delete;
    ThreadTable& operator=(const ThreadTable&) = delete;

    // Room for max_threads live threads (the table is twice that, so probes stay short).
    bool init(size_t max_threads);

    // Async-signal-safe.
    ThreadSlot* find(int32_t tid) const;

    // Normal context, caller holds the lock. Returns the slot of tid, with *existed telling
    // whether it was already there; nullptr when the table is full. A new slot is zeroed
    // (armed = 0) except for its tid.
    ThreadSlot* insert(int32_t tid, bool* existed);
    void remove(ThreadSlot* slot);

    bool ready() const { return slots_ != nullptr; }
    size_t slot_count() const { return slots_ == nullptr ? 0 : mask_ + 1; }
    ThreadSlot* slot_at(size_t index) const { return &slots_[index]; }
    size_t index_of(const ThreadSlot* slot) const { return size_t(slot - slots_); }

private:
    size_t home(int32_t tid) const { return (uint32_t(tid) * 2654435761u) & mask_; }

    ThreadSlot* slots_ = nullptr;
    size_t mask_ = 0;
    size_t live_ = 0;
    size_t max_live_ = 0;
};

}  // namespace stackreq_perf
