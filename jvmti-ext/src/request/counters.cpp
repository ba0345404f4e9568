#include "request/counters.h"

namespace stackreq {

std::atomic<int64_t> Counters::values_[kCounterCount];

StatisticsEvent Counters::snapshot(int64_t ticks) {
    StatisticsEvent s;
    s.start_ticks = ticks;
    for (int c = 0; c < kCounterCount; c++) s.counters[c] = values_[c].load(std::memory_order_relaxed);
    // From the copies, so that the identities hold within one snapshot.
    s.requested = 0;
#define STACKREQ_COUNTER_OUTCOME(name, jfr_name, outcome, label, description) \
    if (outcome) s.requested += s[Counter::name];
    STACKREQ_COUNTERS(STACKREQ_COUNTER_OUTCOME)
#undef STACKREQ_COUNTER_OUTCOME
    s.pending = s[Counter::accepted] - s[Counter::emitted] - s[Counter::dropped];
    return s;
}

void Counters::reset_for_test() {
    for (auto& value : values_) value.store(0);
}

}  // namespace stackreq
