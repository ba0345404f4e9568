#include "request/thread_registry.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace stackreq {

ThreadRegistry::Slot ThreadRegistry::slots_[ThreadRegistry::kCapacity];
std::atomic<bool> ThreadRegistry::adopted_{false};

namespace {
// initial-exec: a plain %fs-relative load, never the lazy allocation of __tls_get_addr, so a
// signal handler may read it. The tid beside the pointer detects a slot reused by another thread;
// ended is set by the thread's own ThreadEnd, until a JNI AttachCurrentThread starts it again.
struct CurrentThread {
    const void* slot;
    int32_t tid;
    bool ended;
};
__attribute__((tls_model("initial-exec"))) thread_local CurrentThread t_current = {nullptr, 0, false};

// A forked child's only thread inherits the parent thread's TLS but has another tid.
void forget_current_in_child() { t_current = {nullptr, 0, false}; }

uint32_t hash_tid(int32_t tid) {
    return (static_cast<uint32_t>(tid) * 2654435761u) & (ThreadRegistry::kCapacity - 1);
}

// Nothing below low + the guard margin is ever read (ThreadRegistry::kGuardMargin).
void usable_stack(uintptr_t address, size_t size, uintptr_t* low, uintptr_t* high) {
    *low = 0;
    *high = 0;
    if (size <= ThreadRegistry::kGuardMargin) return;
    *low = address + ThreadRegistry::kGuardMargin;
    *high = address + size;
}

void stack_bounds_of_current(uintptr_t* low, uintptr_t* high) {
    *low = 0;
    *high = 0;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void* address = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &address, &size) == 0) {
        usable_stack(reinterpret_cast<uintptr_t>(address), size, low, high);
    }
    pthread_attr_destroy(&attr);
}
}  // namespace

int32_t ThreadRegistry::current_tid() { return static_cast<int32_t>(syscall(SYS_gettid)); }

ThreadRegistry::Slot* ThreadRegistry::claim(int32_t tid) {
    uint32_t index = hash_tid(tid);
    for (uint32_t probe = 0; probe < kCapacity; probe++, index = (index + 1) & (kCapacity - 1)) {
        Slot& slot = slots_[index];
        int32_t seen = slot.tid.load(std::memory_order_relaxed);
        if (seen != kEmpty && seen != kDeleted) continue;
        if (!slot.tid.compare_exchange_strong(seen, kClaimed, std::memory_order_acquire)) continue;
        slot.jfr_excluded.store(false, std::memory_order_relaxed);
        slot.mounted_thread_key.store(0, std::memory_order_relaxed);
        return &slot;
    }
    return nullptr;
}

ThreadRegistry::Slot* ThreadRegistry::find(int32_t tid) {
    uint32_t index = hash_tid(tid);
    for (uint32_t probe = 0; probe < kCapacity; probe++, index = (index + 1) & (kCapacity - 1)) {
        int32_t seen = slots_[index].tid.load(std::memory_order_acquire);
        if (seen == kEmpty) return nullptr;
        if (seen == tid) return &slots_[index];
    }
    return nullptr;
}

bool ThreadRegistry::add_current(JNIEnv* jni) {
    static pthread_once_t at_fork_once = PTHREAD_ONCE_INIT;
    pthread_once(&at_fork_once, [] { pthread_atfork(nullptr, nullptr, forget_current_in_child); });
    int32_t tid = current_tid();
    remove(tid);  // a stale entry of an earlier thread with the same tid
    Slot* slot = claim(tid);
    if (slot == nullptr) return false;
    slot->jni = jni;
    stack_bounds_of_current(&slot->stack_low, &slot->stack_high);
    slot->tid.store(tid, std::memory_order_release);
    t_current = {slot, tid, false};
    return true;
}

bool ThreadRegistry::adopt(int32_t tid, JNIEnv* jni, uintptr_t stack_address, size_t stack_size) {
    if (find(tid) != nullptr) return true;
    Slot* slot = claim(tid);
    if (slot == nullptr) return false;
    slot->jni = jni;
    usable_stack(stack_address, stack_size, &slot->stack_low, &slot->stack_high);
    slot->tid.store(tid, std::memory_order_release);
    adopted_.store(true, std::memory_order_release);
    return true;
}

void ThreadRegistry::remove(int32_t tid) {
    if (t_current.tid == tid) t_current = {nullptr, 0, false};
    Slot* slot = find(tid);
    if (slot != nullptr) slot->tid.store(kDeleted, std::memory_order_release);
}

int32_t ThreadRegistry::end_current() {
    int32_t tid = current_tid();
    remove(tid);
    t_current = {nullptr, tid, true};
    return tid;
}

bool ThreadRegistry::current_has_ended() { return t_current.ended; }

void ThreadRegistry::set_jfr_excluded(int32_t tid, bool excluded) {
    Slot* slot = find(tid);
    if (slot != nullptr) slot->jfr_excluded.store(excluded, std::memory_order_release);
}

bool ThreadRegistry::jfr_excluded(int32_t tid) {
    Slot* slot = find(tid);
    return slot != nullptr && slot->jfr_excluded.load(std::memory_order_acquire);
}

ThreadRegistry::Slot* ThreadRegistry::current_slot(int32_t* tid) {
    CurrentThread current = t_current;
    if (current.slot == nullptr) {
        if (current.ended || !adopted_.load(std::memory_order_acquire)) return nullptr;
        // A thread adopted at attach: its slot is found once by tid, then through TLS.
        int32_t own_tid = current_tid();
        const Slot* adopted = find(own_tid);
        if (adopted == nullptr) return nullptr;
        current = {adopted, own_tid, false};
        t_current = current;
    }
    Slot* slot = const_cast<Slot*>(static_cast<const Slot*>(current.slot));
    if (slot->tid.load(std::memory_order_acquire) != current.tid) return nullptr;
    *tid = current.tid;
    return slot;
}

void ThreadRegistry::set_current_mounted(uint64_t thread_key) {
    int32_t tid = 0;
    Slot* slot = current_slot(&tid);
    if (slot != nullptr) slot->mounted_thread_key.store(thread_key, std::memory_order_release);
}

bool ThreadRegistry::find_current(ThreadSlotView* out, int32_t* tid) {
    const Slot* slot = current_slot(tid);
    if (slot == nullptr) return false;
    out->jni = slot->jni;
    out->stack_low = slot->stack_low;
    out->stack_high = slot->stack_high;
    out->jfr_excluded = slot->jfr_excluded.load(std::memory_order_acquire);
    out->mounted_thread_key = slot->mounted_thread_key.load(std::memory_order_acquire);
    return true;
}

}  // namespace stackreq
