#include "sampler.h"

#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "cpu_timer.h"
#include "perf_group.h"
#include "thread_table.h"

namespace stackreq_perf {

namespace {

SamplerConfig g_config;
EventSpec g_events[kMaxGroupEvents];
SampleRing g_ring;
ThreadTable g_threads;
std::mutex g_lock;  // arm, disarm, start, stop: normal context only

std::atomic<bool> g_running{false};
std::atomic<int> g_in_flight{0};
std::atomic<int64_t> g_sequence{0};
struct sigaction g_previous[_NSIG];
bool g_installed[_NSIG];

std::atomic<uint64_t> g_samples{0}, g_lost{0}, g_read_errors{0}, g_foreign{0}, g_armed{0},
    g_quarters{0};
// Posted by a handler whose sample fills another quarter of the ring (sem_post is async-signal-safe),
// and to stop the writer; the writer waits on it between drains.
sem_t g_samples_ready;
bool g_samples_ready_made = false;  // under g_lock

int64_t monotonic_ns() {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

bool is_ours(const siginfo_t* info, const ThreadSlot* slot, size_t slot_index) {
    if (g_config.engine == EngineKind::kPerf) {
        // A counter's fasync signal carries the band and si_fd.
        return info->si_code == POLL_IN && info->si_fd == slot->fds[0];
    }
    return info->si_code == SI_TIMER && info->si_value.sival_int == int(slot_index);
}

bool take_sample(siginfo_t* info, void* context) {
    int64_t now = monotonic_ns();
    pid_t tid = current_tid();
    ThreadSlot* slot = g_threads.find(tid);
    if (slot == nullptr || slot->armed.load(std::memory_order_acquire) == 0) return false;
    if (!is_ours(info, slot, g_threads.index_of(slot))) return false;

    Sample sample;
    memset(&sample, 0, sizeof(sample));
    sample.tid = tid;
    sample.time_ns = now;
    sample.cpu = sched_getcpu();
    if (g_config.engine == EngineKind::kPerf) {
        uint64_t values[kMaxGroupEvents];
        if (perf_group_read(slot, values)) {
            for (int i = 0; i < slot->fd_count; i++) {
                sample.deltas[i] = values[i] - slot->previous[i];
                slot->previous[i] = values[i];
            }
        } else {
            g_read_errors.fetch_add(1, std::memory_order_relaxed);
        }
    } else {
        uint64_t cpu_time = thread_cpu_time_ns(slot->cpu_clock);
        sample.deltas[0] = cpu_time - slot->previous[0];
        slot->previous[0] = cpu_time;
    }
    sample.user_data = g_sequence.fetch_add(1, std::memory_order_relaxed) + 1;
    sample.error = g_config.request(g_config.env, nullptr, g_config.biased ? nullptr : context, sample.user_data);
    bool quarter_filled = false;
    if (g_ring.push(sample, &quarter_filled)) {
        g_samples.fetch_add(1, std::memory_order_relaxed);
        if (quarter_filled) {
            g_quarters.fetch_add(1, std::memory_order_relaxed);
            sem_post(&g_samples_ready);
        }
    } else {
        g_lost.fetch_add(1, std::memory_order_relaxed);
    }
    return true;
}

void chain(int signo, siginfo_t* info, void* context) {
    g_foreign.fetch_add(1, std::memory_order_relaxed);
    const struct sigaction& previous = g_previous[signo];
    if (previous.sa_flags & SA_SIGINFO) {
        if (previous.sa_sigaction != nullptr) previous.sa_sigaction(signo, info, context);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(signo);
    }
    // SIG_DFL for SIGPROF terminates the process: a stray profiling signal (one queued just
    // before a thread was disarmed) must not do that, so it is dropped and counted.
}

void on_signal(int signo, siginfo_t* info, void* context) {
    int saved_errno = errno;
    // Counted in flight before looking at g_running (both seq_cst): stop() either sees this
    // handler or this handler sees stop()'s g_running = false.
    g_in_flight.fetch_add(1);
    bool handled = g_running.load() && take_sample(info, context);
    g_in_flight.fetch_sub(1);
    if (!handled) chain(signo, info, context);
    errno = saved_errno;
}

void wait_for_handlers() {
    // Handlers run for microseconds; 1 s covers a descheduled one on a loaded machine.
    for (int i = 0; i < 10000 && g_in_flight.load() != 0; i++) {
        timespec pause{0, 100000};
        nanosleep(&pause, nullptr);
    }
}

void release(ThreadSlot* slot) {
    slot->armed.store(0);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (slot->fd_count > 0) {
        perf_group_disable(slot);
        perf_group_close(slot);
    }
    cpu_timer_close(slot);
}

const char* errno_name(int error) {
    const char* name = strerrorname_np(error);
    return name != nullptr ? name : "?";
}

bool path_exists(const char* path) {
    struct stat info;
    return stat(path, &info) == 0;
}

std::string open_failure(const EventSpec& event, int error) {
    std::string line = std::string("cannot open event '") + event.name + "': " + strerror(error) + " (" +
                       errno_name(error) + ")";
    bool hardware = event.type == PERF_TYPE_HARDWARE || event.type == PERF_TYPE_HW_CACHE;
    if (hardware && (error == ENOENT || error == ENODEV || error == EOPNOTSUPP || error == EINVAL)) {
        if (!path_exists("/sys/bus/event_source/devices/cpu") &&
            !path_exists("/sys/bus/event_source/devices/cpu_core")) {
            line += " — this machine has no hardware PMU; try event=task-clock or event=page-faults";
        } else {
            line += " — this CPU's PMU does not offer it; try event=task-clock or event=page-faults";
        }
    } else if (error == EACCES || error == EPERM) {
        line += " — not permitted (see /proc/sys/kernel/perf_event_paranoid, CAP_PERFMON); try engine=cpu-timer";
    } else if (error == EMFILE || error == ENFILE) {
        line += " — out of file descriptors";
    } else {
        line += " — try engine=cpu-timer";
    }
    return line;
}

}  // namespace

pid_t current_tid() { return pid_t(syscall(SYS_gettid)); }

bool probe_engine(const AgentOptions& options, bool* exclude_kernel, std::string* error) {
    *exclude_kernel = false;
    if (options.engine == EngineKind::kCpuTimer) {
        ThreadSlot slot;
        memset(static_cast<void*>(&slot), 0, sizeof(slot));
        int result = cpu_timer_open(current_tid(), options.signal, 0, &slot);
        if (result != 0) {
            *error = std::string("cannot create a thread CPU-time timer: ") + strerror(result) + " (" +
                     errno_name(result) + ")";
            return false;
        }
        cpu_timer_close(&slot);
        return true;
    }
    GroupConfig group;
    group.events = options.events;
    group.event_count = options.event_count;
    group.period = options.period;
    for (int attempt = 0; attempt < 2; attempt++) {
        group.exclude_kernel = attempt == 1;
        ThreadSlot slot;
        memset(static_cast<void*>(&slot), 0, sizeof(slot));
        int failed_event = 0;
        int result = perf_group_open(group, 0, &slot, &failed_event);
        if (result == 0) {
            perf_group_close(&slot);
            *exclude_kernel = group.exclude_kernel;
            return true;
        }
        // Without CAP_PERFMON, perf_event_paranoid >= 2 allows user-space counting only.
        if (attempt == 0 && (result == EACCES || result == EPERM)) continue;
        *error = open_failure(options.events[failed_event], result);
        return false;
    }
    return false;
}

bool Sampler::start(const SamplerConfig& config, std::string* error) {
    std::lock_guard<std::mutex> guard(g_lock);
    if (g_running.load()) {
        *error = "sampler already running";
        return false;
    }
    if (config.request == nullptr || config.signal <= 0 || config.signal >= _NSIG ||
        (config.engine == EngineKind::kPerf && (config.event_count < 1 || config.event_count > kMaxGroupEvents))) {
        *error = "bad sampler configuration";
        return false;
    }
    g_config = config;
    // A restart (start, stop, start again in a running JVM) reuses the ring and the table but
    // counts anew.
    for (std::atomic<uint64_t>* counter :
         {&g_samples, &g_lost, &g_read_errors, &g_foreign, &g_armed, &g_quarters}) {
        counter->store(0);
    }
    for (int i = 0; i < config.event_count; i++) g_events[i] = config.events[i];
    g_config.events = g_events;
    if (!g_ring.ready() && !g_ring.init(config.ring_capacity)) {
        *error = "cannot allocate the sample ring";
        return false;
    }
    if (!g_threads.ready() && !g_threads.init(config.max_threads)) {
        *error = "cannot allocate the thread table";
        return false;
    }
    if (!g_samples_ready_made) {
        if (sem_init(&g_samples_ready, 0, 0) != 0) {
            *error = std::string("cannot create the writer's semaphore: ") + strerror(errno);
            return false;
        }
        g_samples_ready_made = true;
    }
    if (!g_installed[config.signal]) {
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_sigaction = on_signal;
        action.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&action.sa_mask);
        if (sigaction(config.signal, &action, &g_previous[config.signal]) != 0) {
            *error = std::string("cannot install the handler of signal ") + std::to_string(config.signal) + ": " +
                     strerror(errno);
            return false;
        }
        g_installed[config.signal] = true;
    }
    g_running.store(true);
    return true;
}

int Sampler::arm_thread(pid_t tid, bool replace_stale, int* failed_event) {
    std::lock_guard<std::mutex> guard(g_lock);
    *failed_event = 0;
    if (!g_running.load()) return ECANCELED;
    bool existed = false;
    ThreadSlot* slot = g_threads.insert(tid, &existed);
    if (slot == nullptr) return ENOSPC;
    if (existed) {
        if (!replace_stale) return 0;
        release(slot);
        g_threads.remove(slot);
        slot = g_threads.insert(tid, &existed);
        if (slot == nullptr) return ENOSPC;
    }
    int result;
    if (g_config.engine == EngineKind::kPerf) {
        GroupConfig group;
        group.events = g_config.events;
        group.event_count = g_config.event_count;
        group.period = g_config.period;
        group.exclude_kernel = g_config.exclude_kernel;
        group.signal = g_config.signal;
        result = perf_group_open(group, tid, slot, failed_event);
        if (result == 0) {
            slot->armed.store(1, std::memory_order_release);
            result = perf_group_enable(slot);
        }
    } else {
        result = cpu_timer_open(tid, g_config.signal, int(g_threads.index_of(slot)), slot);
        if (result == 0) {
            slot->armed.store(1, std::memory_order_release);
            result = cpu_timer_start(slot, g_config.period);
        }
    }
    if (result != 0) {
        release(slot);
        g_threads.remove(slot);
        return result;
    }
    g_armed.fetch_add(1, std::memory_order_relaxed);
    return 0;
}

void Sampler::disarm_thread(pid_t tid) {
    std::lock_guard<std::mutex> guard(g_lock);
    ThreadSlot* slot = g_threads.find(tid);
    if (slot == nullptr) return;
    slot->armed.store(0);
    // Another thread's handler may be reading this slot's fds right now.
    if (tid != current_tid()) wait_for_handlers();
    release(slot);
    g_threads.remove(slot);
}

bool Sampler::is_armed(pid_t tid) {
    ThreadSlot* slot = g_threads.find(tid);
    return slot != nullptr && slot->armed.load() != 0;
}

void Sampler::stop() {
    std::lock_guard<std::mutex> guard(g_lock);
    if (!g_running.load()) return;
    g_running.store(false);
    wait_for_handlers();
    for (size_t i = 0; i < g_threads.slot_count(); i++) {
        ThreadSlot* slot = g_threads.slot_at(i);
        if (slot->tid.load() > 0) {
            release(slot);
            g_threads.remove(slot);
        }
    }
}

bool Sampler::running() { return g_running.load(); }

bool Sampler::pop(Sample* out) { return g_ring.ready() && g_ring.pop(out); }

void Sampler::wait_for_samples(int64_t timeout_ns) {
    if (!g_samples_ready_made) {
        timespec pause{time_t(timeout_ns / 1000000000), long(timeout_ns % 1000000000)};
        nanosleep(&pause, nullptr);
        return;
    }
    timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += time_t(timeout_ns / 1000000000);
    deadline.tv_nsec += long(timeout_ns % 1000000000);
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    while (sem_clockwait(&g_samples_ready, CLOCK_MONOTONIC, &deadline) != 0 && errno == EINTR) {
    }
}

void Sampler::wake_writer() {
    if (g_samples_ready_made) sem_post(&g_samples_ready);
}

SamplerStats Sampler::stats() {
    SamplerStats stats;
    stats.samples = g_samples.load();
    stats.lost = g_lost.load();
    stats.read_errors = g_read_errors.load();
    stats.foreign = g_foreign.load();
    stats.armed_threads = g_armed.load();
    stats.quarters_filled = g_quarters.load();
    return stats;
}

const SamplerConfig& Sampler::config() { return g_config; }

}  // namespace stackreq_perf
