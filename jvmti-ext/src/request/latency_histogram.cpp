#include "request/latency_histogram.h"

#include <cstdio>

#include "agent/agent_state.h"
#include "native_unwind/arch.h"

namespace stackreq {

int64_t LatencyClock::nanos_per_cycle_q20_ = int64_t{1} << 20;

void LatencyClock::calibrate() {
    const int64_t start_nanos = monotonic_ticks();
    const uint64_t start_cycles = cycle_counter();
    int64_t nanos = 0;
    while ((nanos = monotonic_ticks() - start_nanos) < 20000000) {
    }
    const int64_t cycles = static_cast<int64_t>(cycle_counter() - start_cycles);
    if (cycles > 0) nanos_per_cycle_q20_ = (nanos << 20) / cycles;
}

int LatencyHistogram::bucket_of(int64_t nanos) {
    if (nanos < (1 << kSubBits)) return nanos < 0 ? 0 : static_cast<int>(nanos);
    int magnitude = 63 - __builtin_clzll(static_cast<uint64_t>(nanos));
    int sub = static_cast<int>((nanos >> (magnitude - kSubBits)) & ((1 << kSubBits) - 1));
    int bucket = ((magnitude - kSubBits + 1) << kSubBits) + sub;
    return bucket < kBuckets ? bucket : kBuckets - 1;
}

int64_t LatencyHistogram::upper_bound_of(int bucket) {
    if (bucket < (1 << kSubBits)) return bucket;
    int magnitude = (bucket >> kSubBits) + kSubBits - 1;
    int64_t sub = bucket & ((1 << kSubBits) - 1);
    return (((int64_t{1} << kSubBits) + sub + 1) << (magnitude - kSubBits)) - 1;  // inclusive
}

void LatencyHistogram::record(int64_t nanos) {
    counts_[bucket_of(nanos)].fetch_add(1, std::memory_order_relaxed);
    int64_t seen = max_.load(std::memory_order_relaxed);
    while (nanos > seen && !max_.compare_exchange_weak(seen, nanos, std::memory_order_relaxed)) {
    }
}

int64_t LatencyHistogram::count() const {
    int64_t total = 0;
    for (const auto& c : counts_) total += c.load(std::memory_order_relaxed);
    return total;
}

int64_t LatencyHistogram::quantile(double q) const {
    int64_t total = count();
    if (total == 0) return 0;
    int64_t rank = static_cast<int64_t>(q * static_cast<double>(total - 1)) + 1;
    int64_t seen = 0;
    for (int i = 0; i < kBuckets; i++) {
        seen += counts_[i].load(std::memory_order_relaxed);
        if (seen >= rank) return upper_bound_of(i);
    }
    return max();
}

RequestLatency& request_latency() {
    static RequestLatency latency;
    return latency;
}

namespace {
void append(std::string* out, const char* name, const LatencyHistogram& h) {
    char line[256];
    std::snprintf(line, sizeof(line), "\"%s\":{\"count\":%lld,\"p50\":%lld,\"p90\":%lld,\"p99\":%lld,\"max\":%lld}",
                  name, static_cast<long long>(h.count()), static_cast<long long>(h.quantile(0.5)),
                  static_cast<long long>(h.quantile(0.9)), static_cast<long long>(h.quantile(0.99)),
                  static_cast<long long>(h.max()));
    *out += line;
}
}  // namespace

std::string latency_report_json() {
    RequestLatency& latency = request_latency();
    std::string out = "{";
    append(&out, "captureAndEnqueueNanos", latency.capture_and_enqueue);
    out += ",";
    append(&out, "walkNanos", latency.walk);
    out += ",";
    append(&out, "firstWalkNanos", latency.first_walk);
    out += ",";
    append(&out, "wholeNanos", latency.whole);
    out += ",";
    append(&out, "clockPairNanos", latency.clock_pair);
    out += ",";
    append(&out, "wholeSecondNanos", latency.whole_second);
    out += ",";
    append(&out, "firstWalkSecondNanos", latency.first_walk_second);
    out += "}\n";
    return out;
}

}  // namespace stackreq
