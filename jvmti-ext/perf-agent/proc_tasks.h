// Finding the kernel tid of a Java thread that started before the agent could see it (no
// ThreadStart for threads started before VMInit): HotSpot names each Java thread's native
// thread after it (Linux keeps 15 bytes of the name in /proc/self/task/<tid>/comm), so a
// Java name that matches exactly one task's comm gives its tid.
#pragma once

#include <sys/types.h>

#include <vector>

namespace stackreq_perf {

struct TaskComm {
    pid_t tid;
    char comm[16];
};

// The tids of this process's threads, in /proc/self/task order. Normal context.
std::vector<pid_t> list_own_tids();

// The threads of this process with their names. Normal context.
std::vector<TaskComm> list_own_tasks();

// True when comm is what the kernel shows for a thread named java_name: the name cut to 15
// bytes, or an abbreviation "<head>..<tail>" of it (newer JDKs shorten long names so).
bool comm_matches(const char* comm, const char* java_name);

// The tid of the only task in tasks whose comm matches java_name; 0 when none does, -1 when
// several do (the thread is then left to ThreadStart-less sampling: not armed).
pid_t unique_task_for(const std::vector<TaskComm>& tasks, const char* java_name);

}  // namespace stackreq_perf
