#include "proc_tasks.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace stackreq_perf {

std::vector<pid_t> list_own_tids() {
    std::vector<pid_t> tids;
    DIR* directory = opendir("/proc/self/task");
    if (directory == nullptr) return tids;
    while (dirent* entry = readdir(directory)) {
        char* end = nullptr;
        long tid = strtol(entry->d_name, &end, 10);
        if (tid > 0 && *end == '\0') tids.push_back(pid_t(tid));
    }
    closedir(directory);
    return tids;
}

std::vector<TaskComm> list_own_tasks() {
    std::vector<TaskComm> tasks;
    for (pid_t tid : list_own_tids()) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/task/%d/comm", int(tid));
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;  // the thread ended meanwhile
        TaskComm task;
        memset(&task, 0, sizeof(task));
        task.tid = tid;
        ssize_t length = read(fd, task.comm, sizeof(task.comm) - 1);
        close(fd);
        if (length <= 0) continue;
        if (task.comm[length - 1] == '\n') task.comm[length - 1] = '\0';
        tasks.push_back(task);
    }
    return tasks;
}

namespace {

bool blocks_signal_now(pid_t tid, int signal) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d/status", int(tid));
    FILE* status = fopen(path, "re");
    if (status == nullptr) return false;  // the thread ended meanwhile
    char line[256];
    unsigned long long blocked = 0;
    bool found = false;
    while (!found && fgets(line, sizeof(line), status) != nullptr) {
        found = sscanf(line, "SigBlk: %llx", &blocked) == 1;
    }
    fclose(status);
    return found && signal >= 1 && signal <= 64 && (blocked >> (signal - 1) & 1) != 0;
}

}  // namespace

bool task_blocks_signal(pid_t tid, int signal) {
    // A thread may block signals for a moment (qemu-user blocks every host signal around parts of
    // its signal handling), and one read can catch it so: in CI (arm64 JDK 17 under qemu) main,
    // left out so at an attach, was never sampled. A thread that blocks the signal for good, as
    // qemu's RCU thread does, blocks it in every read.
    constexpr int kReads = 5;
    for (int read = 0; read < kReads; read++) {
        if (!blocks_signal_now(tid, signal)) return false;
        if (read + 1 < kReads) usleep(2000);
    }
    return true;
}

bool comm_matches(const char* comm, const char* java_name) {
    if (strncmp(comm, java_name, 15) == 0 &&
        (strlen(java_name) <= 15 ? strcmp(comm, java_name) == 0 : strlen(comm) == 15)) {
        return true;
    }
    const char* dots = strstr(comm, "..");
    if (dots == nullptr || strlen(java_name) <= 15) return false;
    size_t head = size_t(dots - comm);
    const char* tail = dots + 2;
    size_t tail_length = strlen(tail);
    size_t name_length = strlen(java_name);
    return head + tail_length < name_length && strncmp(comm, java_name, head) == 0 &&
           strcmp(java_name + name_length - tail_length, tail) == 0;
}

pid_t unique_task_for(const std::vector<TaskComm>& tasks, const char* java_name) {
    pid_t found = 0;
    for (const TaskComm& task : tasks) {
        if (!comm_matches(task.comm, java_name)) continue;
        if (found != 0) return -1;
        found = task.tid;
    }
    return found;
}

JavaThreadMatch match_java_threads(const std::vector<TaskComm>& tasks, const std::vector<std::string>& java_names,
                                   pid_t pid) {
    JavaThreadMatch match;
    // The tasks each name matches, sorted; the Java threads that have the same such set.
    std::vector<std::vector<pid_t>> candidates(java_names.size());
    std::map<std::vector<pid_t>, std::vector<size_t>> threads_by_candidates;
    std::map<pid_t, int> candidate_sets_per_task;
    for (size_t i = 0; i < java_names.size(); i++) {
        for (const TaskComm& task : tasks) {
            if (comm_matches(task.comm, java_names[i].c_str())) candidates[i].push_back(task.tid);
        }
        std::sort(candidates[i].begin(), candidates[i].end());
        std::vector<size_t>& threads = threads_by_candidates[candidates[i]];
        if (threads.empty()) {
            for (pid_t tid : candidates[i]) candidate_sets_per_task[tid]++;
        }
        threads.push_back(i);
    }
    std::vector<bool> matched(java_names.size(), false);
    std::vector<std::string> reasons(java_names.size());
    std::vector<pid_t> taken;
    for (const auto& [tids, threads] : threads_by_candidates) {
        std::string reason;
        if (tids.empty()) {
            reason = "no matching native thread";
        } else if (tids.size() != threads.size()) {
            reason = std::to_string(threads.size()) + " Java thread(s) of that name, " + std::to_string(tids.size()) +
                     " matching native threads";
        } else {
            for (pid_t tid : tids) {
                if (candidate_sets_per_task[tid] > 1) reason = "its native thread also matches Java threads of other names";
            }
        }
        for (size_t i : threads) {
            matched[i] = reason.empty();
            reasons[i] = reason;
        }
        if (reason.empty()) taken.insert(taken.end(), tids.begin(), tids.end());
    }
    const char* process_comm = nullptr;
    for (const TaskComm& task : tasks) {
        if (task.tid == pid) process_comm = task.comm;
    }
    bool creator_tried = false;  // only one thread created the JVM
    for (size_t i = 0; i < java_names.size(); i++) {
        if (matched[i]) continue;
        if (java_names[i] == kCreatorThreadName && process_comm != nullptr && !creator_tried) {
            std::vector<pid_t> others;
            for (const TaskComm& task : tasks) {
                if (task.tid != pid && strcmp(task.comm, process_comm) == 0 &&
                    std::find(taken.begin(), taken.end(), task.tid) == taken.end()) {
                    others.push_back(task.tid);
                }
            }
            pid_t creator = others.size() == 1 ? others[0] : 0;
            if (others.size() > 1) reasons[i] = "several native threads keep the process's name";
            if (others.empty() && std::find(taken.begin(), taken.end(), pid) == taken.end()) creator = pid;
            creator_tried = true;
            if (creator != 0) {
                matched[i] = true;
                taken.push_back(creator);
                continue;
            }
        }
        match.unmatched.push_back("'" + java_names[i] + "': " + reasons[i]);
    }
    match.tids = taken;
    return match;
}

}  // namespace stackreq_perf
