#include "request/request_timing.h"

#include <atomic>

#include "request/latency_histogram.h"
#include "request/request_ring.h"
#include "walk/asgct_walk.h"

namespace stackreq {

namespace {

std::atomic<uint64_t> g_turns{0};

// walker=vmstructs: times the bare AsyncGetCallTrace walk the VMStructs walk is compared with into
// histogram, into a buffer on this stack (up to kMaxBareWalkDepth frames; deeper rings are not
// measured).
constexpr uint32_t kMaxBareWalkDepth = 256;
void record_bare_walk(const ThreadSlotView& thread, void* ucontext, uint32_t max_depth, LatencyHistogram* histogram) {
    if (max_depth > kMaxBareWalkDepth) return;
    CallFrame frames[kMaxBareWalkDepth];
    const uint64_t cycles = AsgctWalk::time_bare_walk(thread, ucontext, frames, max_depth);
    if (cycles > 0) histogram->record(LatencyClock::to_nanos(static_cast<int64_t>(cycles)));
}

int64_t nanos(uint64_t cycles) { return LatencyClock::to_nanos(static_cast<int64_t>(cycles)); }

}  // namespace

// With walker=vmstructs and a ucontext (unless latency-bare-walk=off) every other request is timed
// after a bare AsyncGetCallTrace walk from the same context, timed first (RequestLatency).
TimedRequest TimedRequest::start(const AgentState& state, void* ucontext) {
    if (state.options.walker != Walker::kVmStructs || ucontext == nullptr || !state.options.latency_bare_walk) {
        return TimedRequest(Turn::kAlone);
    }
    if (g_turns.fetch_add(1, std::memory_order_relaxed) % 2 == 0) return TimedRequest(Turn::kRequestFirst);
    int32_t tid = 0;
    ThreadSlotView thread;
    if (ThreadRegistry::find_current(&thread, &tid) && !thread.jfr_excluded) {
        record_bare_walk(thread, ucontext, state.ring.max_depth(), &request_latency().first_walk);
    }
    return TimedRequest(Turn::kBareWalkFirst);
}

// Splits the request into the walk and everything else, in cycle_counter() units until here. A
// request timed after a bare walk counts in whole_second only; a thread the registry does not hold
// (thread null) takes no turn.
void TimedRequest::finished(const ThreadSlotView* thread, void* ucontext, uint32_t max_depth) {
    RequestLatency& latency = request_latency();
    const uint64_t left = cycle_counter();
    const uint64_t pair_end = cycle_counter();
    const Turn turn = thread == nullptr ? Turn::kAlone : turn_;
    if (turn == Turn::kBareWalkFirst) {
        latency.whole_second.record(nanos(left - entered_));
        return;
    }
    latency.capture_and_enqueue.record(nanos(left - entered_ - walk_cycles_));
    if (walk_cycles_ > 0) latency.walk.record(nanos(walk_cycles_));
    if (first_walk_cycles_ > 0) latency.first_walk.record(nanos(first_walk_cycles_));
    latency.whole.record(nanos(left - entered_));
    latency.clock_pair.record(nanos(pair_end - left));
    if (turn == Turn::kRequestFirst) {
        record_bare_walk(*thread, ucontext, max_depth, &latency.first_walk_second);
    }
}

}  // namespace stackreq
