#include "perf_group.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace stackreq_perf {

int perf_event_open_fd(perf_event_attr* attr, pid_t tid, int cpu, int group_fd, unsigned long flags) {
    return int(syscall(SYS_perf_event_open, attr, tid, cpu, group_fd, flags));
}

namespace {

int route_signal_to_thread(int fd, pid_t tid, int signal) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_ASYNC) < 0) return errno;
    // F_SETSIG makes the kernel queue a siginfo with si_fd, and F_OWNER_TID sends it to the
    // sampled thread itself rather than to any thread of the process.
    if (fcntl(fd, F_SETSIG, signal) < 0) return errno;
    f_owner_ex owner{F_OWNER_TID, tid};
    if (fcntl(fd, F_SETOWN_EX, &owner) < 0) return errno;
    return 0;
}

}  // namespace

int perf_group_open(const GroupConfig& config, pid_t tid, ThreadSlot* slot, int* failed_event) {
    slot->fd_count = 0;
    int error = 0;
    for (int i = 0; i < config.event_count; i++) {
        AttrRequest request;
        request.leader = i == 0;
        request.period = config.period;
        request.exclude_kernel = config.exclude_kernel;
        perf_event_attr attr;
        build_attr(config.events[i], request, &attr);
        int group = i == 0 ? -1 : slot->fds[0];
        int fd = perf_event_open_fd(&attr, tid, -1, group, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            error = errno;
            *failed_event = i;
            break;
        }
        slot->fds[slot->fd_count++] = fd;
        if (ioctl(fd, PERF_EVENT_IOC_ID, &slot->ids[i]) < 0) {
            error = errno;
            *failed_event = i;
            break;
        }
    }
    if (error == 0 && config.signal != 0) {
        error = route_signal_to_thread(slot->fds[0], tid, config.signal);
        if (error != 0) *failed_event = 0;
    }
    if (error == 0 && !perf_group_read(slot, slot->previous)) {
        error = errno != 0 ? errno : EIO;
        *failed_event = 0;
    }
    if (error != 0) perf_group_close(slot);
    return error;
}

int perf_group_enable(const ThreadSlot* slot) {
    return ioctl(slot->fds[0], PERF_EVENT_IOC_ENABLE, 0) < 0 ? errno : 0;
}

bool perf_group_read(const ThreadSlot* slot, uint64_t* values) {
    // PERF_FORMAT_GROUP | PERF_FORMAT_ID: { nr, { value, id } [nr] }
    uint64_t buffer[1 + 2 * kMaxGroupEvents];
    ssize_t length = read(slot->fds[0], buffer, sizeof(buffer));
    if (length < ssize_t(sizeof(uint64_t))) return false;
    uint64_t count = buffer[0];
    if (count != uint64_t(slot->fd_count) || length < ssize_t(sizeof(uint64_t) * (1 + 2 * count))) return false;
    for (uint64_t n = 0; n < count; n++) {
        uint64_t value = buffer[1 + 2 * n];
        uint64_t id = buffer[2 + 2 * n];
        for (int i = 0; i < slot->fd_count; i++) {
            if (slot->ids[i] == id) values[i] = value;
        }
    }
    return true;
}

void perf_group_disable(const ThreadSlot* slot) {
    if (slot->fd_count > 0) ioctl(slot->fds[0], PERF_EVENT_IOC_DISABLE, 0);
}

void perf_group_close(ThreadSlot* slot) {
    // Members first: closing a leader while members are open promotes them to singletons.
    for (int i = slot->fd_count - 1; i >= 0; i--) close(slot->fds[i]);
    slot->fd_count = 0;
}

}  // namespace stackreq_perf
