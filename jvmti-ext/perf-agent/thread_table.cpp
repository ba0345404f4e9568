#include "thread_table.h"

#include <sys/mman.h>

#include <cstring>

namespace stackreq_perf {

ThreadTable::~ThreadTable() {
    if (slots_ != nullptr) munmap(slots_, sizeof(ThreadSlot) * (mask_ + 1));
}

bool ThreadTable::init(size_t max_threads) {
    size_t size = 16;
    while (size < max_threads * 2) size <<= 1;
    void* memory = mmap(nullptr, sizeof(ThreadSlot) * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return false;
    slots_ = static_cast<ThreadSlot*>(memory);  // zero pages: every tid is kFreeTid
    mask_ = size - 1;
    max_live_ = max_threads;
    return true;
}

ThreadSlot* ThreadTable::find(int32_t tid) const {
    if (slots_ == nullptr || tid <= 0) return nullptr;
    size_t index = home(tid);
    for (size_t probes = 0; probes <= mask_; probes++) {
        int32_t owner = slots_[index].tid.load(std::memory_order_acquire);
        if (owner == tid) return &slots_[index];
        if (owner == kFreeTid) return nullptr;
        index = (index + 1) & mask_;
    }
    return nullptr;
}

ThreadSlot* ThreadTable::insert(int32_t tid, bool* existed) {
    *existed = false;
    if (slots_ == nullptr || tid <= 0) return nullptr;
    ThreadSlot* reusable = nullptr;
    size_t index = home(tid);
    for (size_t probes = 0; probes <= mask_; probes++) {
        int32_t owner = slots_[index].tid.load(std::memory_order_relaxed);
        if (owner == tid) {
            *existed = true;
            return &slots_[index];
        }
        if (owner == kRemovedTid && reusable == nullptr) reusable = &slots_[index];
        if (owner == kFreeTid) {
            if (reusable == nullptr) reusable = &slots_[index];
            break;
        }
        index = (index + 1) & mask_;
    }
    if (reusable == nullptr || live_ == max_live_) return nullptr;
    // A removed slot may still be probed past by handlers of other threads looking for their
    // own tid; they only compare tids, so rewriting the rest before publishing the tid is safe.
    reusable->armed.store(0, std::memory_order_relaxed);
    memset(reusable->fds, 0, sizeof(reusable->fds));
    memset(reusable->ids, 0, sizeof(reusable->ids));
    memset(reusable->previous, 0, sizeof(reusable->previous));
    reusable->fd_count = 0;
    reusable->has_timer = false;
    reusable->cpu_clock = 0;
    reusable->tid.store(tid, std::memory_order_release);
    live_++;
    return reusable;
}

void ThreadTable::remove(ThreadSlot* slot) {
    slot->armed.store(0, std::memory_order_release);
    slot->tid.store(kRemovedTid, std::memory_order_release);
    live_--;
}

}  // namespace stackreq_perf
