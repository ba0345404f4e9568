// Request accounting, declared once so the statistics event, the log and the tests agree.
// Invariant: accepted = emitted + dropped + pending, and pending is 0 after a flush.
// Every request ends in exactly one of accepted, throttled or a rejected_* counter, so the
// number of calls is their sum (requests()), which spares the request path one atomic add.
#pragma once

#include <atomic>
#include <cstdint>

namespace stackreq {

#define STACKREQ_COUNTERS(X)                                                             \
    X(accepted, "requests that passed every gate (= emitted + dropped + pending)")       \
    X(emitted, "events written to the event store")                                      \
    X(dropped, "accepted requests lost: the ring was full")                             \
    X(failed, "emitted events with failed = true")                                       \
    X(throttled, "requests suppressed by the throttle setting")                          \
    X(recovered, "walks that failed in a stub and succeeded from the Java caller")       \
    X(rejected_wrong_phase, "JVMTI_ERROR_WRONG_PHASE returned")                          \
    X(rejected_not_available, "JVMTI_ERROR_NOT_AVAILABLE returned")                      \
    X(rejected_invalid_thread, "JVMTI_ERROR_INVALID_THREAD returned")                    \
    X(rejected_thread_not_alive, "JVMTI_ERROR_THREAD_NOT_ALIVE returned")                \
    X(rejected_unsupported, "JVMTI_ERROR_UNSUPPORTED_OPERATION returned")                \
    X(rejected_other, "other errors (unattached thread, bad environment)")

enum class Counter : int {
#define STACKREQ_COUNTER_ENUM(name, description) name,
    STACKREQ_COUNTERS(STACKREQ_COUNTER_ENUM)
#undef STACKREQ_COUNTER_ENUM
    kCount
};

// Lock-free, async-signal-safe: only relaxed atomic adds on the request path.
class Counters {
public:
    static void add(Counter c, int64_t n = 1) {
        values_[static_cast<int>(c)].fetch_add(n, std::memory_order_relaxed);
    }
    static int64_t get(Counter c) { return values_[static_cast<int>(c)].load(std::memory_order_relaxed); }
    // Calls to RequestStackTrace that have returned.
    static int64_t requests();
    static const char* name(Counter c);
    static void reset_for_test();

private:
    static std::atomic<int64_t> values_[static_cast<int>(Counter::kCount)];
};

}  // namespace stackreq
