// threads=all: every thread of the process is sampled, as `perf record -p` counts them, not only
// the Java threads JVMTI announces: the JVM's own (GC workers, compilers, the VM thread) and
// native ones. A thread of its own rescans /proc/self/task every few milliseconds, arms the
// tids it has not seen and disarms those that are gone. A thread that lives shorter than one
// rescan is not sampled; neither is one whose tid an ended thread left armed less than a rescan
// before (the kernel reuses tids only after it has gone round them all).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace stackreq_perf {

class TaskWatcher {
public:
    using Arm = void (*)(pid_t tid);
    using Disarm = void (*)(pid_t tid);

    // Normal context: one rescan at once, then one every period_ns on a new thread. False when
    // the thread cannot be created.
    static bool start(uint64_t period_ns, Arm arm, Disarm disarm);
    // Stops the thread and waits for it; the tids stay armed.
    static void stop();
    // One rescan: arms the tids of tasks not in known, disarms those of known no longer listed;
    // known becomes the tids listed. Normal context.
    static void rescan(std::vector<pid_t>* known, Arm arm, Disarm disarm);
};

}  // namespace stackreq_perf
