#include "sample_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace stackreq_perf {

namespace {

// Samples filling a quarter of the ring wake the writer at once; otherwise it drains once a second.
// Each wake-up costs a context switch, which at 20 a second was about half of this thread's CPU
// at 1,000 samples a second.
constexpr int64_t kDrainPeriodNanos = 1000000000;
// Lines are written when half the buffer is full or a second after the last write: each write(2)
// to the file costs the kernel's per-call work (the file's times, the inode made dirty), which
// at one call a drain was a third of this thread's CPU at 1,000 samples a second.
constexpr auto kWritePeriod = std::chrono::seconds(1);
constexpr size_t kMaxLine = 1024;

}  // namespace

bool SampleWriter::open(const std::string& path, std::string* error) {
    // Never through a symbolic link at the path; an existing file loses write for others.
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    struct stat status;
    if (fd_ >= 0 && fstat(fd_, &status) == 0 && (status.st_mode & S_IWOTH) != 0) {
        fchmod(fd_, status.st_mode & ~(S_IWOTH | S_IWGRP));
    }
    if (fd_ < 0) {
        *error = "cannot open out=" + path + ": " + strerror(errno);
        return false;
    }
    path_ = path;
    // A load into a running JVM may start a new file after an earlier one was finished.
    stop_.store(false);
    written_.store(0);
    write_errors_.store(0);
    errors_ = ErrorTally();
    buffered_ = 0;
    return true;
}

bool SampleWriter::start(const StreamInfo& info, PopFunction pop, WaitFunction wait, WakeFunction wake,
                         int blocked_signal, std::string* error) {
    info_ = info;
    pop_ = pop;
    wait_ = wait;
    wake_ = wake;
    char line[kMaxLine];
    size_t length = format_start_line(info_, line, sizeof(line));
    append(line, length);
    flush();
    sigset_t blocked, previous;
    sigemptyset(&blocked);
    sigaddset(&blocked, blocked_signal);
    pthread_sigmask(SIG_BLOCK, &blocked, &previous);  // inherited by the new thread
    int result = pthread_create(&thread_, nullptr, run, this);
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (result != 0) {
        *error = std::string("cannot start the writer thread: ") + strerror(result);
        return false;
    }
    thread_started_ = true;
    return true;
}

void* SampleWriter::run(void* self) {
    SampleWriter* writer = static_cast<SampleWriter*>(self);
    pthread_setname_np(pthread_self(), "stackreq-perf");
    while (!writer->stop_.load()) {
        writer->drain();
        writer->wait_(kDrainPeriodNanos);
    }
    return nullptr;
}

void SampleWriter::drain() {
    Sample sample;
    char line[kMaxLine];
    while (pop_ != nullptr && pop_(&sample)) {
        errors_.add(sample.error);
        append(line, format_sample_line(info_, sample, line, sizeof(line)));
        written_.fetch_add(1, std::memory_order_relaxed);
    }
    if (buffered_ >= sizeof(buffer_) / 2 || std::chrono::steady_clock::now() - last_flush_ >= kWritePeriod) flush();
}

void SampleWriter::finish(uint64_t lost) {
    if (thread_started_) {
        stop_.store(true);
        wake_();
        pthread_join(thread_, nullptr);
        thread_started_ = false;
    }
    if (fd_ < 0) return;
    drain();
    char line[4096];
    append(line, format_end_line(written_.load(), lost, errors_, line, sizeof(line)));
    flush();
    close(fd_);
    fd_ = -1;
}

void SampleWriter::abandon() {
    if (fd_ < 0) return;
    close(fd_);
    fd_ = -1;
    unlink(path_.c_str());
}

void SampleWriter::append(const char* data, size_t length) {
    if (length == 0) return;
    if (buffered_ + length > sizeof(buffer_)) flush();
    memcpy(buffer_ + buffered_, data, length);
    buffered_ += length;
}

void SampleWriter::flush() {
    last_flush_ = std::chrono::steady_clock::now();
    size_t offset = 0;
    while (offset < buffered_ && fd_ >= 0) {
        ssize_t written = write(fd_, buffer_ + offset, buffered_ - offset);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            write_errors_.fetch_add(1, std::memory_order_relaxed);
            break;
        }
        offset += size_t(written);
    }
    buffered_ = 0;
}

}  // namespace stackreq_perf
