// The writer thread: a plain pthread (not a JVM thread, never sampled) that drains the
// sample ring into its buffer when a sample fills another quarter of the ring and at least once a
// second, writes the buffer to the JSON-lines file when half of it is full or a second has
// passed, and writes the rest and the end line at finish().
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "json_lines.h"
#include "sample_ring.h"

namespace stackreq_perf {

using PopFunction = bool (*)(Sample* out);
// Returns when there are samples to drain, the writer is woken, or timeout_ns has passed.
using WaitFunction = void (*)(int64_t timeout_ns);
using WakeFunction = void (*)();

class SampleWriter {
public:
    // Creates or truncates path and starts counting anew. Called at agent load so a bad path
    // fails startup (and at each start of a load into a running JVM).
    bool open(const std::string& path, std::string* error);
    // Writes the start line and starts the thread, which drains with pop whenever wait returns;
    // finish() calls wake. blocked_signal is masked in the writer thread so profiling signals
    // never land there.
    bool start(const StreamInfo& info, PopFunction pop, WaitFunction wait, WakeFunction wake, int blocked_signal,
               std::string* error);
    // Stops the thread, writes every sample still queued and the end line, closes the file.
    // lost: samples the producers could not queue.
    void finish(uint64_t lost);
    // Closes and removes the file when profiling never started.
    void abandon();

    uint64_t written() const { return written_.load(); }
    uint64_t write_errors() const { return write_errors_.load(); }
    const ErrorTally& errors() const { return errors_; }  // valid after finish()
    const std::string& path() const { return path_; }

private:
    static void* run(void* self);
    void drain();
    void append(const char* data, size_t length);
    void flush();

    std::string path_;
    int fd_ = -1;
    StreamInfo info_;
    PopFunction pop_ = nullptr;
    WaitFunction wait_ = nullptr;
    WakeFunction wake_ = nullptr;
    pthread_t thread_{};
    bool thread_started_ = false;
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> written_{0};
    std::atomic<uint64_t> write_errors_{0};
    ErrorTally errors_;
    char buffer_[1 << 18];
    size_t buffered_ = 0;
    std::chrono::steady_clock::time_point last_flush_;  // writer thread (and finish() after it)
};

}  // namespace stackreq_perf
