#include "cpu_timer.h"

#include <signal.h>

#include <cerrno>
#include <cstring>

namespace stackreq_perf {

namespace {

// include/linux/posix-timers.h: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)
constexpr clockid_t kCpuClockSched = 2;
constexpr clockid_t kCpuClockPerThread = 4;

}  // namespace

clockid_t thread_cpu_clock(pid_t tid) {
    return clockid_t((~unsigned(tid)) << 3) | kCpuClockSched | kCpuClockPerThread;
}

uint64_t thread_cpu_time_ns(clockid_t clock) {
    timespec now;
    if (clock_gettime(clock, &now) != 0) return 0;
    return uint64_t(now.tv_sec) * 1000000000u + uint64_t(now.tv_nsec);
}

int cpu_timer_open(pid_t tid, int signal, int slot_index, ThreadSlot* slot) {
    sigevent event;
    memset(&event, 0, sizeof(event));
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = signal;
    event.sigev_value.sival_int = slot_index;
    // glibc does not define sigev_notify_thread_id (the kernel's name for this field).
    event._sigev_un._tid = tid;
    slot->cpu_clock = thread_cpu_clock(tid);
    if (timer_create(slot->cpu_clock, &event, &slot->timer) != 0) return errno;
    slot->has_timer = true;
    slot->previous[0] = thread_cpu_time_ns(slot->cpu_clock);
    return 0;
}

int cpu_timer_start(const ThreadSlot* slot, uint64_t interval_ns) {
    itimerspec spec;
    spec.it_interval.tv_sec = time_t(interval_ns / 1000000000u);
    spec.it_interval.tv_nsec = long(interval_ns % 1000000000u);
    spec.it_value = spec.it_interval;
    return timer_settime(slot->timer, 0, &spec, nullptr) != 0 ? errno : 0;
}

void cpu_timer_close(ThreadSlot* slot) {
    if (slot->has_timer) timer_delete(slot->timer);
    slot->has_timer = false;
}

}  // namespace stackreq_perf
