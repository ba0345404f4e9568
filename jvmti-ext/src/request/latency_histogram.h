// Optional per-request latency recording (agent option latency=PATH), for the benchmarks:
// lock-free log-linear histograms that signal handlers update with relaxed atomic adds.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace stackreq {

class LatencyHistogram {
public:
    // 8 sub-buckets per power of two: about 12% resolution up to 2^40 ns.
    static constexpr int kSubBits = 3;
    static constexpr int kBuckets = (41 << kSubBits);

    void record(int64_t nanos);  // async-signal-safe
    int64_t count() const;
    // The largest value of the bucket that holds the given quantile (0..1); 0 when empty.
    int64_t quantile(double q) const;
    int64_t max() const { return max_.load(std::memory_order_relaxed); }

    static int bucket_of(int64_t nanos);
    static int64_t upper_bound_of(int bucket);

private:
    std::atomic<int64_t> counts_[kBuckets] = {};
    std::atomic<int64_t> max_{0};
};

// Converts cycle_counter() intervals to nanoseconds. calibrate() (normal context, ~20 ms)
// measures the counter against CLOCK_MONOTONIC; to_nanos is async-signal-safe.
class LatencyClock {
public:
    static void calibrate();
    static int64_t to_nanos(int64_t cycles) { return (cycles * nanos_per_cycle_q20_) >> 20; }

private:
    static int64_t nanos_per_cycle_q20_;  // fixed point, 20 fractional bits
};

// The request path's two parts: everything but the walk, and the walks.
// With walker=vmstructs the requests take turns (request.cpp): one in two is timed first, the
// other after a bare AsyncGetCallTrace walk timed first, so that each of the two figures compared
// comes from requests where it ran cold, in the same JVM; what ran second, warmed by the first,
// goes into the *_second histograms, reported beside them.
struct RequestLatency {
    LatencyHistogram capture_and_enqueue;
    LatencyHistogram walk;        // every walk of the request (AsyncGetCallTrace's, the VMStructs walk, the physical walk)
    LatencyHistogram first_walk;  // the first AsyncGetCallTrace call alone: the bare walk
    LatencyHistogram whole;       // the request from entry to return (minus the histogram updates)
    LatencyHistogram clock_pair;  // two back-to-back cycle_counter() reads: the measurement itself
    LatencyHistogram whole_second;       // walker=vmstructs: the request after a bare walk
    LatencyHistogram first_walk_second;  // walker=vmstructs: the bare walk after a request
};

RequestLatency& request_latency();

// JSON object with count/p50/p90/p99/max per histogram, written at VMDeath.
std::string latency_report_json();

}  // namespace stackreq
