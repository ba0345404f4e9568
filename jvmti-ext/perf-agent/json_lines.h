// The samples file: JSON lines. One "start" line, one "sample" line per sample, one "end"
// line. Field names are part of the contract with the analysis CLI (it joins "userData"
// with the jdk.StackTraceRequest events).
#pragma once

#include <cstddef>
#include <cstdint>

#include "event_table.h"
#include "sample_ring.h"

namespace stackreq_perf {

struct StreamInfo {
    const char* engine = "perf";              // "perf" or "cpu-timer"
    const char* names[kMaxGroupEvents] = {};  // leader first
    int count = 0;
    uint64_t period = 0;
    bool period_is_time = true;               // "periodUnit": "ns" or "count"
    int pid = 0;
};

// Tally of the jvmtiError codes RequestStackTrace returned, for the end line.
class ErrorTally {
public:
    void add(int32_t code);
    uint64_t count(int32_t code) const;
    // {"0":N,"112":N}, codes ascending.
    size_t format(char* buffer, size_t capacity) const;

private:
    static constexpr int kMaxCodes = 64;
    int32_t codes_[kMaxCodes] = {};
    uint64_t counts_[kMaxCodes] = {};
    int used_ = 0;
    uint64_t other_ = 0;  // codes beyond kMaxCodes distinct ones, reported as "other"
};

// Each returns the line's length including the final '\n', or 0 if it does not fit.
size_t format_start_line(const StreamInfo& info, char* buffer, size_t capacity);
size_t format_sample_line(const StreamInfo& info, const Sample& sample, char* buffer, size_t capacity);
size_t format_end_line(uint64_t samples, uint64_t lost, const ErrorTally& errors, char* buffer, size_t capacity);

}  // namespace stackreq_perf
