// The JVMTI environments that called DisableRequestStackTrace and have not enabled again: their
// requests return NOT_AVAILABLE while other environments' go on. A fixed table of atomics, read
// from signal handlers without a lock; written from normal context only, under a mutex.
#pragma once

#include <jvmti.h>

namespace stackreq {

class DisabledEnvironments {
public:
    enum class Added { kYes, kAlready, kFull };

    // Async-signal-safe.
    static bool contains(jvmtiEnv* env);
    // Normal context.
    static Added add(jvmtiEnv* env);
    // Normal context. False when env was not disabled.
    static bool remove(jvmtiEnv* env);
};

}  // namespace stackreq
