#include "agent/agent_state.h"

#include <errno.h>
#include <time.h>

#include <cstring>

#include "agent/log.h"

namespace stackreq {

AgentState& agent() {
    static AgentState state;
    return state;
}

void commit_ring_memory(AgentState& state) {
    if (!state.ring.commit_memory_once()) {
        Log::info("the request ring's memory stays uncommitted until its first use (MADV_POPULATE_WRITE: %s)",
                  std::strerror(errno));
    }
}

int64_t monotonic_ticks() {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

int64_t epoch_nanos_of(int64_t ticks) {
    timespec realtime;
    clock_gettime(CLOCK_REALTIME, &realtime);
    int64_t now_epoch = static_cast<int64_t>(realtime.tv_sec) * 1000000000 + realtime.tv_nsec;
    return now_epoch - (monotonic_ticks() - ticks);
}

void Throttle::configure(int64_t limit, int64_t window_ns) {
    window_ns_.store(window_ns > 0 ? window_ns : 1000000000, std::memory_order_relaxed);
    limit_.store(limit > 0 ? limit : 0, std::memory_order_release);
}

bool Throttle::admit(int64_t now_ticks) {
    int64_t limit = limit_.load(std::memory_order_acquire);
    if (limit == 0) return true;
    int64_t start = window_start_.load(std::memory_order_acquire);
    if (now_ticks - start >= window_ns_.load(std::memory_order_relaxed)) {
        if (window_start_.compare_exchange_strong(start, now_ticks, std::memory_order_acq_rel)) {
            count_.store(0, std::memory_order_release);
        }
    }
    return count_.fetch_add(1, std::memory_order_acq_rel) < limit;
}

}  // namespace stackreq
