// One thread's perf counter group: open (leader samples, members count), route the
// overflow signal to that thread, enable, read all values at once, close.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "event_table.h"
#include "thread_table.h"

namespace stackreq_perf {

struct GroupConfig {
    const EventSpec* events = nullptr;  // leader first
    int event_count = 0;
    uint64_t period = 0;
    bool exclude_kernel = false;
    int signal = 0;  // 0: open and read only, no overflow signal (used by the startup probe)
};

// Opens the group for tid (any thread of this process) into slot->fds/ids/fd_count and
// reads the starting values into slot->previous. Leaves the group disabled: call
// perf_group_enable. On failure closes what it opened, returns the errno and sets
// *failed_event to the index of the event that could not be opened.
int perf_group_open(const GroupConfig& config, pid_t tid, ThreadSlot* slot, int* failed_event);

// Starts the group counting. Every overflow of the leader raises the signal and the group
// counts on: a signal the kernel merges into one already pending (SIGPROF from another
// profiler) costs one sample, not the thread's sampling, as a group that waited for the handler
// to re-enable it would. Returns 0 or errno.
int perf_group_enable(const ThreadSlot* slot);

// Reads every member (one read() of the leader) and stores each value into values[i] for
// event i. Async-signal-safe. Returns false when the read fails or is short.
bool perf_group_read(const ThreadSlot* slot, uint64_t* values);

void perf_group_disable(const ThreadSlot* slot);
void perf_group_close(ThreadSlot* slot);

// perf_event_open(2); glibc has no wrapper.
int perf_event_open_fd(perf_event_attr* attr, pid_t tid, int cpu, int group_fd, unsigned long flags);

}  // namespace stackreq_perf
