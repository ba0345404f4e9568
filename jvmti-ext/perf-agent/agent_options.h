// Options of libstackreq-perf.so:
//   -agentpath:libstackreq-perf.so=event=task-clock+page-faults,interval=1ms,out=samples.jsonl
#pragma once

#include <csignal>
#include <cstdint>
#include <string>

#include "event_table.h"
#include "perf_log.h"

namespace stackreq_perf {

enum class EngineKind { kPerf, kCpuTimer };

// What a load of the agent into a running JVM does: start sampling (the default, and the only
// action at startup), or stop the sampling an earlier load started.
enum class AgentAction { kStart, kStop };

struct AgentOptions {
    EngineKind engine = EngineKind::kPerf;
    // engine=perf: the group, leader first (task-clock when event= is absent).
    EventSpec events[kMaxGroupEvents];
    int event_count = 0;
    // The leader's sample period: ns for task-clock, cpu-clock and the cpu-timer engine
    // (interval=), occurrences for counting events (period=). Defaults from the event table.
    uint64_t period = 0;
    bool period_is_time = true;
    std::string out = "stackreq-samples.jsonl";
    int signal = SIGPROF;
    LogLevel log_level = LogLevel::kWarn;
    // "biased": request with ucontext = NULL, so the stack is taken at the thread's next
    // safepoint instead of at the signal (the safepoint-biased baseline of the benchmarks).
    bool biased = false;
    // "dry-run": take the same signals, counters and samples but make no request (a no-op
    // stands in for RequestStackTrace): the baseline that isolates stackreq's own cost.
    bool dry_run = false;
    AgentAction action = AgentAction::kStart;
    // "threads=all": every thread of the process (task_watcher.h), not only the Java threads.
    bool all_threads = false;
};

// Parses text (null or empty = all defaults). On error returns false and sets *error to one
// line naming the offending option.
bool parse_agent_options(const char* text, AgentOptions* out, std::string* error);

// "500ns", "250us", "1ms", "2s" -> nanoseconds. A unit is required (a bare number is
// ambiguous: perf reads ns, stackreq's own options read ms). Zero is rejected.
bool parse_duration_ns(const std::string& text, uint64_t* out);

// Decimal, no sign, no unit, > 0, no overflow.
bool parse_positive(const std::string& text, uint64_t* out);

}  // namespace stackreq_perf
