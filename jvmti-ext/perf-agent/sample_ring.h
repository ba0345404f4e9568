// A bounded multi-producer, single-consumer queue of samples, preallocated at start: signal
// handlers on many threads push, the writer thread pops. Lock-free (a CAS per push, Vyukov's
// per-cell sequence numbers); a full ring makes push() fail so the caller counts a lost sample.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "event_table.h"

namespace stackreq_perf {

struct Sample {
    int64_t user_data;
    int64_t time_ns;                     // CLOCK_MONOTONIC when the handler ran
    uint64_t deltas[kMaxGroupEvents];    // per group event since the thread's previous sample
    int32_t tid;
    int32_t cpu;
    int32_t error;                       // jvmtiError returned by RequestStackTrace
};

class SampleRing {
public:
    SampleRing() = default;
    ~SampleRing();
    SampleRing(const SampleRing&) = delete;
    SampleRing& operator=(const SampleRing&) = delete;

    // Normal context. capacity is rounded up to a power of two. False when out of memory.
    bool init(size_t capacity);
    bool ready() const { return cells_ != nullptr; }
    size_t capacity() const { return mask_ + 1; }

    // Async-signal-safe. False when the ring is full. *quarter_filled: this sample filled another
    // quarter of the ring (one push in capacity / 4; never for a ring under four cells), the moment
    // to wake the consumer.
    bool push(const Sample& sample, bool* quarter_filled);
    // Single consumer. False when empty, or when the oldest claimed cell is not published
    // yet (its producer was interrupted mid-copy): it is returned by a later pop.
    bool pop(Sample* out);

private:
    struct Cell {
        std::atomic<uint64_t> sequence;
        Sample sample;
    };
    Cell* cells_ = nullptr;
    size_t mask_ = 0;
    alignas(64) std::atomic<uint64_t> tail_{0};  // next cell producers claim
    alignas(64) uint64_t head_ = 0;              // next cell the consumer reads
};

}  // namespace stackreq_perf
