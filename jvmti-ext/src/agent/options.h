// Agent options: -agentpath:libstackreq.so=name=value,name=value
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/log.h"

namespace stackreq {

// walker=vmstructs|asgct: who walks an unbiased request's stack in the signal handler:
// the VMStructs walk (vmstructs_walk.h, the default), which falls back to AsyncGetCallTrace where it
// cannot walk, or AsyncGetCallTrace alone.
enum class Walker : uint8_t { kAsyncGetCallTrace, kVmStructs };

struct Options {
    std::string file;             // file=PATH: standalone recording of every accepted request
    uint32_t ring_slots = 4096;   // ring=N: request slots, rounded up to a power of two
    uint32_t max_depth = 256;     // depth=N: frames per stack trace
    uint32_t stack_cache = 8192;  // stack-cache=N: walked stacks remembered resolved (0 = off)
    // pending=N: events waiting for JFR's current chunk to finish; beyond it stackreq asks JFR to
    // start a new chunk (as a dump does). 40 bytes an event.
    uint32_t pending_limit = 200000;
    // continuous=off: do not hook JFR's chunk files; events reach a recording when it stops.
    bool continuous = true;
    // native=on: unbiased stacks start with the native frames (C/C++, JVM stubs) above the Java ones.
    bool native_frames = false;
    LogLevel log_level = LogLevel::kWarn;  // log=off|warn|info|debug[:PATH]
    std::string log_path;
    bool extensions = true;       // extensions=off: do not add the extension ids
    std::string events_jar;       // events-jar=PATH, default: beside libstackreq.so
    int64_t stats_period_ns = 1000000000;  // stats=DURATION: statistics event period
    std::string latency_path;     // latency=PATH: record request latencies, JSON at exit
    // latency-bare-walk=off: with latency= and walker=vmstructs, no bare AsyncGetCallTrace walk is
    // timed beside the requests (a benchmark of the overhead must not pay for one per request).
    bool latency_bare_walk = true;
    Walker walker = Walker::kVmStructs;
    // null-ucontext=safepoint: a request without a ucontext from a signal handler gets, as on the
    // JDK, the stack at the call or at the thread's next safepoint (biased), rather than the stack
    // of the signal's own context, which stackreq finds on the stack (signal, the default).
    bool null_ucontext_from_signal = true;
};

// Parses text (may be null or empty) into *out. On error returns false and sets *error to one
// line naming the offending option.
bool parse_options(const char* text, Options* out, std::string* error);

// What this architecture lacks (native_unwind/arch.h's k...Known): native=on is refused (false,
// *error one line); walker=vmstructs and null-ucontext=signal, the defaults, fall back to
// walker=asgct and null-ucontext=safepoint, each with one line in *notices for the log. Does
// nothing on x86_64.
bool limit_to_architecture(Options* options, std::vector<std::string>* notices, std::string* error);

// "10ms", "250us", "1s", "500ns", "2m"; a bare number is milliseconds. Returns false on error.
bool parse_duration_ns(const std::string& text, int64_t* out);

}  // namespace stackreq
