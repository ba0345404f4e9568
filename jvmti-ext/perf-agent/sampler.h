// The sampling engine: per-thread perf counter groups (or CPU-time timers), the signal
// handler that turns each overflow into RequestStackTrace + a Sample, and the ring the
// writer drains. Process-wide: a signal handler has no other way to find its state.
#pragma once

#include <jvmti.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "agent_options.h"
#include "sample_ring.h"

namespace stackreq_perf {

// The JEP's RequestStackTrace (stackreq.h: stackreq_RequestStackTrace). A pointer so unit
// tests can pass a fake and run real signals without a JVM.
using RequestFunction = jvmtiError(JNICALL*)(jvmtiEnv* env, jthread* thread, void* ucontext, jlong user_data);

struct SamplerConfig {
    EngineKind engine = EngineKind::kPerf;
    const EventSpec* events = nullptr;  // perf: leader first
    int event_count = 0;
    uint64_t period = 0;                // leader period (ns or count); cpu-timer: interval ns
    bool exclude_kernel = false;
    int signal = 0;
    jvmtiEnv* env = nullptr;            // passed to request as is
    RequestFunction request = nullptr;
    bool biased = false;                // request with ucontext = NULL (option "biased")
    size_t ring_capacity = 16384;
    size_t max_threads = 4096;
};

struct SamplerStats {
    uint64_t samples;       // pushed into the ring
    uint64_t lost;          // ring full
    uint64_t read_errors;   // group read failed (sample still taken, deltas 0)
    uint64_t foreign;       // signals not ours, or queued before their thread was disarmed
    uint64_t armed_threads; // threads armed so far
    uint64_t quarters_filled; // samples that filled another quarter of the ring (and woke the writer)
};

// Opens the group (or a CPU timer) on the calling thread without a signal and closes it:
// the check that the events exist and may be opened. Decides *exclude_kernel: false unless
// the kernel refuses kernel counting (perf_event_paranoid >= 2 without CAP_PERFMON). On
// failure *error is one line naming the event and the errno, with a hint.
bool probe_engine(const AgentOptions& options, bool* exclude_kernel, std::string* error);

class Sampler {
public:
    // Allocates the ring and the thread table (once: a start after stop() reuses them and resets
    // the statistics), installs the signal handler (chaining to the previous one for signals
    // that are not ours). Normal context.
    static bool start(const SamplerConfig& config, std::string* error);

    // Starts sampling thread tid (any thread of the process, usually the caller). Idempotent:
    // a tid already armed is left alone unless replace_stale (a new thread that reuses the
    // tid of one that ended without ThreadEnd). Returns 0 or errno; *failed_event names the
    // event for perf errors.
    static int arm_thread(pid_t tid, bool replace_stale, int* failed_event);
    static void disarm_thread(pid_t tid);
    static bool is_armed(pid_t tid);

    // Stops every thread's counters, waits for handlers in flight, closes everything. The
    // handler stays installed (a late queued signal must not hit SIG_DFL, which for SIGPROF
    // kills the process) and ignores our signals from now on.
    static void stop();

    static bool running();
    // Writer thread only.
    static bool pop(Sample* out);
    // Writer thread: returns when a sample fills another quarter of the ring, wake_writer() is
    // called, or timeout_ns has passed (after timeout_ns when the sampler never started).
    static void wait_for_samples(int64_t timeout_ns);
    static void wake_writer();
    static SamplerStats stats();
    static const SamplerConfig& config();
};

pid_t current_tid();

}  // namespace stackreq_perf
