// Request accounting, declared once: the counters, the statistics snapshot, the
// stackreq.RequestStatistics event's fields (jfr_metadata.cpp) and the log line are generated
// from STACKREQ_COUNTERS, so they cannot drift apart.
// Invariant: accepted = emitted + dropped + pending, and pending is 0 after a flush.
// Every request ends in exactly one outcome counter (accepted, throttled or a rejected_* one), so
// the number of calls is their sum (StatisticsEvent::requested), which spares the request path
// one atomic add.
#pragma once

#include <atomic>
#include <cstdint>

namespace stackreq {

// X(name, JFR field name, outcome of a request?, label, description)
// Laid out by hand, every counter on two lines (clang-format would join the short ones), so it reads as a table.
// clang-format off
#define STACKREQ_COUNTERS(X)                                                                   \
    X(accepted, "accepted", true, "Accepted",                                                  \
      "Requests that passed every gate")                                                       \
    X(emitted, "emitted", false, "Emitted",                                                    \
      "Accepted requests that became events")                                                  \
    X(dropped, "dropped", false, "Dropped",                                                    \
      "Accepted requests lost because the request ring was full")                              \
    X(failed, "failed", false, "Failed",                                                       \
      "Emitted events without a stack trace")                                                  \
    X(throttled, "throttled", true, "Throttled",                                               \
      "Requests suppressed by the throttle setting")                                           \
    X(recovered, "recovered", false, "Recovered",                                              \
      "Walks that failed in a stub and succeeded from the Java caller")                        \
    X(internal_thread, "internalThread", false, "Internal Thread",                             \
      "native=on: accepted requests from threads JVMTI does not show, native stack only")      \
    X(kernel_read, "kernelRead", false, "Read Through The Kernel",                             \
      "Internal-thread requests whose stack HotSpot did not know, read with process_vm_readv") \
    X(rejected_wrong_phase, "rejectedWrongPhase", true, "Rejected: Wrong Phase",               \
      "Requests answered JVMTI_ERROR_WRONG_PHASE")                                             \
    X(rejected_not_available, "rejectedNotAvailable", true, "Rejected: Not Available",         \
      "Requests answered JVMTI_ERROR_NOT_AVAILABLE")                                           \
    X(rejected_invalid_thread, "rejectedInvalidThread", true, "Rejected: Invalid Thread",      \
      "Requests answered JVMTI_ERROR_INVALID_THREAD")                                          \
    X(rejected_thread_not_alive, "rejectedThreadNotAlive", true, "Rejected: Thread Not Alive", \
      "Requests answered JVMTI_ERROR_THREAD_NOT_ALIVE")                                        \
    X(rejected_unsupported, "rejectedUnsupported", true, "Rejected: Unsupported",              \
      "Requests answered JVMTI_ERROR_UNSUPPORTED_OPERATION")                                   \
    X(rejected_other, "rejectedOther", true, "Rejected: Other",                                \
      "Requests answered another error (unattached thread, bad environment)")
// clang-format on

enum class Counter : int {
#define STACKREQ_COUNTER_ENUM(name, jfr_name, outcome, label, description) name,
    STACKREQ_COUNTERS(STACKREQ_COUNTER_ENUM)
#undef STACKREQ_COUNTER_ENUM
    kCount
};

constexpr int kCounterCount = static_cast<int>(Counter::kCount);

// The counters at one instant, as the stackreq.RequestStatistics event carries them: the number
// of calls and of accepted requests not yet emitted, then every counter.
struct StatisticsEvent {
    int64_t start_ticks = 0;
    int64_t requested = 0;
    int64_t pending = 0;
    int64_t counters[kCounterCount] = {};

    int64_t& operator[](Counter c) { return counters[static_cast<int>(c)]; }
    int64_t operator[](Counter c) const { return counters[static_cast<int>(c)]; }
};

// Lock-free, async-signal-safe: only relaxed atomic adds on the request path.
class Counters {
public:
    static void add(Counter c, int64_t n = 1) {
        values_[static_cast<int>(c)].fetch_add(n, std::memory_order_relaxed);
    }
    static int64_t get(Counter c) { return values_[static_cast<int>(c)].load(std::memory_order_relaxed); }
    // Every counter now, stamped with ticks.
    static StatisticsEvent snapshot(int64_t ticks);
    static void reset_for_test();

private:
    static std::atomic<int64_t> values_[kCounterCount];
};

}  // namespace stackreq
