#include "proc_tasks.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

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

}  // namespace stackreq_perf
