#include "check.h"
#include "request/latency_histogram.h"

#include "agent/agent_state.h"
#include "native_unwind/arch.h"

using namespace stackreq;

int main() {
    // Every value lands in a bucket whose upper bound is >= the value and within 1/8 of it.
    for (int64_t v : {0LL, 1LL, 7LL, 8LL, 9LL, 15LL, 16LL, 100LL, 1000LL, 1234567LL, 1LL << 39}) {
        int bucket = LatencyHistogram::bucket_of(v);
        int64_t upper = LatencyHistogram::upper_bound_of(bucket);
        CHECK(upper >= v);
        CHECK(upper <= v + v / 8 + 1);
        if (bucket > 0) CHECK(LatencyHistogram::upper_bound_of(bucket - 1) < v || v < 8);
    }
    static LatencyHistogram h;
    for (int i = 1; i <= 1000; i++) h.record(i * 10);
    CHECK(h.count() == 1000);
    CHECK(h.max() == 10000);
    int64_t p50 = h.quantile(0.5), p99 = h.quantile(0.99);
    CHECK(p50 >= 5000 && p50 <= 5000 + 5000 / 8 + 1);
    CHECK(p99 >= 9900 && p99 <= 9900 + 9900 / 8 + 1);

    // The cycle counter, once calibrated, converts an interval to the nanoseconds CLOCK_MONOTONIC
    // saw for the same interval (both are wall-clock based, so preemption shifts neither).
    LatencyClock::calibrate();
    const int64_t start_nanos = monotonic_ticks();
    const uint64_t start_cycles = cycle_counter();
    while (monotonic_ticks() - start_nanos < 50000000) {
    }
    const int64_t converted = LatencyClock::to_nanos(static_cast<int64_t>(cycle_counter() - start_cycles));
    const int64_t measured = monotonic_ticks() - start_nanos;
    CHECK(converted > measured * 98 / 100 && converted < measured * 102 / 100);
    std::printf("latency_histogram_test: ok (p50 %lld, p99 %lld)\n", static_cast<long long>(p50),
                static_cast<long long>(p99));
    return 0;
}
