// Finding the kernel tid of a Java thread that started before the agent could see it (no
// ThreadStart for threads started before VMInit or before a load into a running JVM): HotSpot
// names each Java thread's native thread after it (Linux keeps 15 bytes of the name in
// /proc/self/task/<tid>/comm), so a Java name that matches exactly one task's comm gives its
// tid. The exception is the thread that created the JVM (JNI_CreateJavaVM: the Java launcher's
// second thread, which runs main), which HotSpot does not rename: it keeps the process's name
// ("java"), as does the launcher's first thread, which only waits for it.
#pragma once

#include <sys/types.h>

#include <string>
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

// True when the thread tid of this process blocks signal (SigBlk in /proc/self/task/<tid>/status)
// in each of five reads 2 ms apart: the sampling signal would never reach it. False when that
// cannot be read. Normal context; up to 8 ms for a thread that blocks it.
bool task_blocks_signal(pid_t tid, int signal);

// True when comm is what the kernel shows for a thread named java_name: the name cut to 15
// bytes, or an abbreviation "<head>..<tail>" of it (newer JDKs shorten long names so).
bool comm_matches(const char* comm, const char* java_name);

// The tid of the only task in tasks whose comm matches java_name; 0 when none does, -1 when
// several do (the thread is then left to ThreadStart-less sampling: not armed).
pid_t unique_task_for(const std::vector<TaskComm>& tasks, const char* java_name);

// The Java thread the JVM was created on is called this until it renames itself (which renames
// its native thread too).
constexpr const char* kCreatorThreadName = "main";

struct JavaThreadMatch {
    std::vector<pid_t> tids;               // the tasks of the Java threads matched, each once
    std::vector<std::string> unmatched;    // 'name': why, for each Java thread matched to no task
};

// The tasks (from tasks, the threads not armed yet) that the Java threads named java_names run
// on, as far as the names tell:
//  - Java threads whose names match the same tasks, as many threads as tasks, get those tasks
//    (one name and one task, or several threads of one name and as many tasks of that name; the
//    pairing within them does not matter, each task gets sampled);
//  - the thread called kCreatorThreadName that matched no task by name (or several) gets the
//    task that keeps the process's name, the comm of the task whose tid is pid, other than pid
//    itself when there is one (the Java launcher's thread that runs main; pid is the launcher's
//    first thread, waiting for it), pid itself otherwise (a launcher that creates the JVM on its
//    first thread); none when several tasks besides pid have the process's name.
// Every other Java name is in unmatched.
JavaThreadMatch match_java_threads(const std::vector<TaskComm>& tasks, const std::vector<std::string>& java_names,
                                   pid_t pid);

}  // namespace stackreq_perf
