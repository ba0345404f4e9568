// Process-wide agent state shared by the request path (read-only atomics there), the emitter
// and the JFR bridge. What only the emitter reads is in emitter/jvmti_records.h.
#pragma once

#include <jni.h>
#include <jvmti.h>
#include <semaphore.h>

#include <atomic>
#include <cstdint>

#include "agent/options.h"
#include "request/request_ring.h"

namespace stackreq {

// JFR's throttle ("N/s"): at most `limit` accepted requests per `window_ns`; limit 0 = off.
class Throttle {
public:
    void configure(int64_t limit, int64_t window_ns);
    // Async-signal-safe. True when the request may pass.
    bool admit(int64_t now_ticks);

private:
    std::atomic<int64_t> limit_{0};
    std::atomic<int64_t> window_ns_{1000000000};
    std::atomic<int64_t> window_start_{0};
    std::atomic<int64_t> count_{0};
};

struct AgentState {
    JavaVM* vm = nullptr;
    jvmtiEnv* jvmti = nullptr;
    Options options;
    RequestRing ring;
    Throttle throttle;
    sem_t emitter_wakeup;

    std::atomic<bool> live{false};            // between VMInit and VMDeath
    std::atomic<bool> recording_seen{false};  // some JFR recording has started in this VM
    std::atomic<bool> event_enabled{false};   // a running recording enables the event (set from Java only)
    // Requests between their first gate check and their publish: a flush that closed a gate
    // waits for this to reach 0 so no request slips past it.
    std::atomic<int> in_flight{0};
    bool file_mode = false;                   // options.file set: no JFR recording needed
    std::atomic<bool> file_failed{false};     // the file= recording could not be written (emitter)
    bool measure_latency = false;             // options.latency_path set

    // java.lang.Thread::isVirtual on JDK 21+, else null. Resolved at VMInit.
    jmethodID thread_is_virtual = nullptr;
    jclass thread_class = nullptr;  // global reference
};

AgentState& agent();

// Normal context: commits the request ring's memory before requests come (RequestRing::
// commit_memory_once), at InitializeRequestStackTrace, EnableRequestStackTrace or when a
// recording first enables the event, whichever is first.
void commit_ring_memory(AgentState& state);

int64_t monotonic_ticks();  // CLOCK_MONOTONIC ns, async-signal-safe
int64_t epoch_nanos_of(int64_t ticks);  // wall clock of a monotonic_ticks() instant

}  // namespace stackreq
