// What the emitter knows of each Java thread: Java name and id, OS tid, and a global
// reference for taking biased stack traces. Entries outlive their threads so events of a
// thread that ended before the drain still carry it. Normal context only; internally locked.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "jfr_chunk.h"

namespace stackreq {

class ThreadDirectory {
public:
    // Called on the starting thread itself (JVMTI ThreadStart / VMInit for the main thread).
    void on_thread_start(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, int32_t tid);
    void on_thread_end(JNIEnv* jni, int32_t tid);

    // Key of the newest thread that had this tid; 0 when unknown.
    uint64_t key_for_tid(int32_t tid);
    // Key of the thread object; registers it (tid 0) when unknown. Returns 0 on failure.
    uint64_t key_for_object(jvmtiEnv* jvmti, JNIEnv* jni, jobject thread);
    bool entry(uint64_t key, ThreadEntry* out) const;

    void set_thread_id_method(jmethodID get_id) { get_id_ = get_id; }

private:
    struct Known {
        ThreadEntry entry;
        jobject ref;  // weak global reference
    };
    uint64_t add_locked(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, int32_t tid);

    mutable std::mutex mutex_;
    std::unordered_map<int32_t, uint64_t> by_tid_;
    std::vector<Known> threads_;  // threads_[key - 1]
    jmethodID get_id_ = nullptr;
};

}  // namespace stackreq
