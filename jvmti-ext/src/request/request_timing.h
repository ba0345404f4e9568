// The request path's clocks. A request is written once, as a template over its clock
// (request.cpp): UntimedRequest, every request's without latency=, whose calls compile to nothing,
// and TimedRequest, for the benchmarks (agent option latency=PATH: latency_histogram.h), which
// splits the request into its walk and the rest. Async-signal-safe.
#pragma once

#include <cstdint>

#include "agent/agent_state.h"
#include "native_unwind/arch.h"
#include "request/thread_registry.h"

namespace stackreq {

class UntimedRequest {
public:
    void walk_begins() {}
    void walk_ends() {}
    // Where the AsyncGetCallTrace walk times its first call (the bare walk), or null.
    uint64_t* first_walk_cycles() { return nullptr; }
    // The request is published; thread is null for a thread the registry does not hold.
    void finished(const ThreadSlotView*, void*, uint32_t) {}
};

class TimedRequest {
public:
    // walker=vmstructs: which of the two compared figures a request times cold (RequestLatency).
    // kAlone: not taking turns (walker=asgct, whose bare walk is the request's own first walk, or
    // no ucontext).
    enum class Turn : uint8_t { kAlone, kRequestFirst, kBareWalkFirst };

    // Takes the request's turn and, when it is the bare walk's, times a bare AsyncGetCallTrace
    // walk from ucontext before the request's clock starts.
    static TimedRequest start(const AgentState& state, void* ucontext);

    void walk_begins() { walk_start_ = cycle_counter(); }
    void walk_ends() { walk_cycles_ = cycle_counter() - walk_start_; }
    uint64_t* first_walk_cycles() { return &first_walk_cycles_; }
    void finished(const ThreadSlotView* thread, void* ucontext, uint32_t max_depth);

private:
    explicit TimedRequest(Turn turn) : turn_(turn), entered_(cycle_counter()) {}

    Turn turn_;
    uint64_t entered_;
    uint64_t walk_start_ = 0;
    uint64_t walk_cycles_ = 0;
    uint64_t first_walk_cycles_ = 0;
};

}  // namespace stackreq
