#include "hotspot/internal_threads.h"

#include <limits.h>
#include <pthread.h>

#include <atomic>

#include "hotspot/hotspot_threads.h"
#include "request/thread_registry.h"

namespace stackreq {

namespace {

// HotSpot's pthread key for the current Thread*, and where a Thread keeps its stack's high end
// and size (Thread::_stack_base, Thread::_stack_size; JavaThread:: on JDKs that declare them
// there). Set once at init, before g_known.
pthread_key_t g_thread_key = 0;
uint64_t g_stack_base = 0, g_stack_size = 0;
std::atomic<bool> g_known{false};

// How far above the signal's stack pointer a thread HotSpot does not know is read at most.
constexpr uintptr_t kUnknownStackReach = 64u << 20;

}  // namespace

bool InternalThreads::init(JNIEnv* jni, jthread current, std::string* error) {
    HotSpotThreads threads;
    if (!threads.init(jni, current, error)) return false;
    g_stack_base = threads.stack_base_offset();
    g_stack_size = threads.stack_size_offset();
    const uintptr_t own = reinterpret_cast<uintptr_t>(jni) - static_cast<uintptr_t>(threads.jni_environment_offset());
    for (unsigned key = 0; key < PTHREAD_KEYS_MAX; key++) {
        if (reinterpret_cast<uintptr_t>(pthread_getspecific(static_cast<pthread_key_t>(key))) != own) continue;
        // The key's Thread must describe this very thread: its stack holds the caller's frame.
        const uintptr_t base = *reinterpret_cast<const uintptr_t*>(own + g_stack_base);
        const uintptr_t size = *reinterpret_cast<const uintptr_t*>(own + g_stack_size);
        const uintptr_t here = reinterpret_cast<uintptr_t>(&key);
        if (size == 0 || size > base || here >= base || here < base - size) continue;
        g_thread_key = static_cast<pthread_key_t>(key);
        g_known.store(true, std::memory_order_release);
        return true;
    }
    *error = "no pthread key holds the current JavaThread";
    return false;
}

bool InternalThreads::current_stack(uintptr_t sp, StackBounds* out) {
    if (g_known.load(std::memory_order_acquire)) {
        // pthread_getspecific only reads the calling thread's own key table (glibc): no lock.
        const uintptr_t thread = reinterpret_cast<uintptr_t>(pthread_getspecific(g_thread_key));
        if (thread != 0) {
            // The calling thread's own Thread: alive while it runs.
            const uintptr_t base = *reinterpret_cast<const volatile uintptr_t*>(thread + g_stack_base);
            const uintptr_t size = *reinterpret_cast<const volatile uintptr_t*>(thread + g_stack_size);
            if (base != 0 && size > ThreadRegistry::kGuardMargin && size <= base) {
                *out = StackBounds{base - size + ThreadRegistry::kGuardMargin, base, false};
                return true;
            }
        }
    }
    const uintptr_t high = sp > UINTPTR_MAX - kUnknownStackReach ? UINTPTR_MAX : sp + kUnknownStackReach;
    *out = StackBounds{sp, high, true};
    return false;
}

void InternalThreads::reset_for_test() { g_known.store(false, std::memory_order_release); }

}  // namespace stackreq
