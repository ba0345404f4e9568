#include "task_watcher.h"

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>

#include "proc_tasks.h"

namespace stackreq_perf {

namespace {

struct WatcherState {
    pthread_t thread;
    bool started = false;
    std::atomic<bool> stopping{false};
    uint64_t period_ns = 0;
    TaskWatcher::Arm arm = nullptr;
    TaskWatcher::Disarm disarm = nullptr;
    std::vector<pid_t> known;
};

WatcherState g_watcher;

void* watch(void*) {
    while (!g_watcher.stopping.load()) {
        timespec pause{time_t(g_watcher.period_ns / 1000000000), long(g_watcher.period_ns % 1000000000)};
        nanosleep(&pause, nullptr);
        if (g_watcher.stopping.load()) break;
        TaskWatcher::rescan(&g_watcher.known, g_watcher.arm, g_watcher.disarm);
    }
    return nullptr;
}

}  // namespace

void TaskWatcher::rescan(std::vector<pid_t>* known, Arm arm, Disarm disarm) {
    std::vector<pid_t> listed = list_own_tids();
    std::sort(listed.begin(), listed.end());
    std::vector<pid_t> gone;
    std::set_difference(known->begin(), known->end(), listed.begin(), listed.end(), std::back_inserter(gone));
    for (pid_t tid : gone) disarm(tid);
    std::vector<pid_t> added;
    std::set_difference(listed.begin(), listed.end(), known->begin(), known->end(), std::back_inserter(added));
    for (pid_t tid : added) arm(tid);
    known->swap(listed);
}

bool TaskWatcher::start(uint64_t period_ns, Arm arm, Disarm disarm) {
    if (g_watcher.started) return true;
    g_watcher.stopping.store(false);
    g_watcher.period_ns = period_ns;
    g_watcher.arm = arm;
    g_watcher.disarm = disarm;
    g_watcher.known.clear();
    rescan(&g_watcher.known, arm, disarm);
    g_watcher.started = pthread_create(&g_watcher.thread, nullptr, watch, nullptr) == 0;
    if (g_watcher.started) pthread_setname_np(g_watcher.thread, "stackreq-tasks");
    return g_watcher.started;
}

void TaskWatcher::stop() {
    if (!g_watcher.started) return;
    g_watcher.stopping.store(true);
    pthread_join(g_watcher.thread, nullptr);
    g_watcher.started = false;
}

}  // namespace stackreq_perf
