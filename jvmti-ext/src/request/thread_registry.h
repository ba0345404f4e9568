// Java threads known to the agent, looked up by OS thread id from signal handlers.
// The table is preallocated; lookups are lock-free reads of atomics (async-signal-safe).
// Entries are added at JVMTI ThreadStart (on the new thread) and removed at ThreadEnd; threads
// that were running when stackreq was attached to a live JVM are adopted by another thread.
// The calling thread also keeps a pointer to its own slot in initial-exec TLS, so a request
// finds its thread without a gettid system call (about 270 ns in these VMs); an adopted thread
// makes that call once, at its first request, to find its slot by tid.
#pragma once

#include <jni.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace stackreq {

struct ThreadSlotView {
    JNIEnv* jni;
    uintptr_t stack_low;   // lowest readable address of the thread's stack (above the guard zones)
    uintptr_t stack_high;  // one past the highest address
    bool jfr_excluded;     // JFR excludes the thread from recording (jfr_exclusion.h)
    uint64_t mounted_thread_key;  // the virtual thread this carrier runs (virtual_threads.h), 0 for none

    // Async-signal-safe: whether [address, address + bytes) is word-aligned and inside the usable
    // stack, i.e. a read there cannot fault. The walkers check every stack read with it.
    bool holds(uintptr_t address, uintptr_t bytes) const {
        return address % sizeof(uintptr_t) == 0 && address >= stack_low && address + bytes <= stack_high &&
               address + bytes > address;
    }
};

class ThreadRegistry {
public:
    static constexpr uint32_t kCapacity = 1u << 15;
    // HotSpot keeps a Java thread's reserved, yellow and red zones PROT_NONE at the low end of its
    // stack (16 KiB with the defaults): no walk reads below its lowest address plus this margin.
    static constexpr uintptr_t kGuardMargin = 64 * 1024;

    // Normal context. Registers the calling thread (tid from gettid). Returns false when full.
    static bool add_current(JNIEnv* jni);
    // Normal context, any thread: registers a thread that started before stackreq was attached
    // (hotspot_threads.h), with its stack mapping [stack_address, stack_address + stack_size).
    // A tid already registered is left alone. Returns false when full.
    static bool adopt(int32_t tid, JNIEnv* jni, uintptr_t stack_address, size_t stack_size);
    // Normal context. Removes tid's entry; when tid is the calling thread, also forgets its slot.
    static void remove(int32_t tid);
    // Normal context, at the calling thread's ThreadEnd: removes its entry and remembers in its
    // TLS that it ended, for current_has_ended. Returns its tid.
    static int32_t end_current();
    // Async-signal-safe: the calling thread's ThreadEnd has run (and no ThreadStart since). Other
    // agents' ThreadEnd callbacks run after stackreq's when their JVMTI environment is younger, so
    // their signals can still reach the thread then.
    static bool current_has_ended();
    // Async-signal-safe; no system call except gettid at an adopted thread's first request.
    // Returns false when the calling thread is not registered (never was, or its ThreadEnd has
    // run: see current_has_ended); *tid is then left unset.
    static bool find_current(ThreadSlotView* out, int32_t* tid);
    static int32_t current_tid();  // gettid: a system call, normal context only where it matters
    // Normal context. Marks tid's entry excluded from JFR, or not; no effect when tid is unknown.
    static void set_jfr_excluded(int32_t tid, bool excluded);
    static bool jfr_excluded(int32_t tid);
    // Normal context, on a carrier thread: the key of the virtual thread it now runs, 0 for none.
    static void set_current_mounted(uint64_t thread_key);

private:
    struct Slot {
        std::atomic<int32_t> tid;  // kEmpty, kDeleted, kClaimed or a tid
        JNIEnv* jni;
        uintptr_t stack_low;
        uintptr_t stack_high;
        std::atomic<bool> jfr_excluded;
        std::atomic<uint64_t> mounted_thread_key;
    };
    static constexpr int32_t kEmpty = 0;
    static constexpr int32_t kDeleted = -1;
    static constexpr int32_t kClaimed = -2;
    static Slot* claim(int32_t tid);
    static Slot* find(int32_t tid);
    // The calling thread's slot (async-signal-safe, see find_current), or null.
    static Slot* current_slot(int32_t* tid);
    static Slot slots_[kCapacity];
    static std::atomic<bool> adopted_;  // some thread was adopted: worth a gettid when TLS is unset
};

}  // namespace stackreq
