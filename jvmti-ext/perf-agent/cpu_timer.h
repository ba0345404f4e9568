// The fallback engine: a POSIX timer on each thread's CPU-time clock, signalling that thread
// (SIGEV_THREAD_ID). Works without perf_event_open; resolution is the kernel tick
// (HZ=250 here: at most ~250 signals/s per thread whatever the interval).
#pragma once

#include <sys/types.h>
#include <time.h>

#include <cstdint>

#include "thread_table.h"

namespace stackreq_perf {

// The CPU-time clock of any thread of this process, by tid (what pthread_getcpuclockid
// returns, without needing the pthread_t).
clockid_t thread_cpu_clock(pid_t tid);

// Async-signal-safe (clock_gettime). 0 when the clock cannot be read.
uint64_t thread_cpu_time_ns(clockid_t clock);

// Creates the timer for tid into slot (value = slot_index, so the handler can verify) and
// records the start CPU time in slot->previous[0]. Returns 0 or errno. Not started yet.
int cpu_timer_open(pid_t tid, int signal, int slot_index, ThreadSlot* slot);
int cpu_timer_start(const ThreadSlot* slot, uint64_t interval_ns);
void cpu_timer_close(ThreadSlot* slot);

}  // namespace stackreq_perf
