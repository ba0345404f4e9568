// What the emitter knows of each Java thread: Java name and id, OS tid, and a weak reference
// to recognize it when another thread names it in a request. Entries outlive their threads so
// events of a thread that ended before the drain still carry it, until forget_ended() finds no
// pending event of theirs. Normal context only; internally locked.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "chunk_writer/jfr_chunk.h"

namespace stackreq {

class ThreadIdentities {
public:
    // Called on the starting thread itself (JVMTI ThreadStart / VMInit for the main thread).
    void on_thread_start(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, int32_t tid);
    void on_thread_end(JNIEnv* jni, int32_t tid);

    // Key of the newest thread that had this tid; 0 when unknown.
    uint64_t key_for_tid(int32_t tid);
    // Key of a thread JVMTI does not show (internal_threads.h), registered at its first request
    // as JFR writes the JVM's own threads: the OS name (/proc/self/task/<tid>/comm) and tid, no
    // Java name or id. Kept for the agent's life (the JVM seldom ends its own threads); a tid
    // that another such thread reuses keeps the first one's name.
    uint64_t key_for_internal_thread(int32_t tid);
    // Key of the thread object; registers it (tid 0) when unknown. Returns 0 on failure.
    uint64_t key_for_object(jvmtiEnv* jvmti, JNIEnv* jni, jobject thread);
    // A virtual thread mounting (on its carrier): its key, registered when new.
    uint64_t on_virtual_mount(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread);
    // It unmounts: like an end, until it mounts again (then it keeps its key, unless its entry
    // was forgotten meanwhile: a new key).
    void on_virtual_unmount(uint64_t key);
    bool entry(uint64_t key, ThreadEntry* out) const;
    // A local reference to the thread object of key, null once it ended or when unknown.
    jobject local_ref(JNIEnv* jni, uint64_t key) const;
    // OS tid of the running thread with this object, 0 when none is known.
    int32_t tid_of(JNIEnv* jni, jobject thread) const;

    // Counts thread ends: a drain that starts after end_count() returned n and takes every
    // request in flight has taken every request of the first n threads that ended.
    uint64_t end_count() const;
    // Whether some thread among the first ended_before ends is still known.
    bool holds_ended(uint64_t ended_before) const;
    // Forgets the threads among the first ended_before ends that no key in referenced names.
    void forget_ended(uint64_t ended_before, const std::unordered_set<uint64_t>& referenced);

    void set_thread_id_method(jmethodID get_id) { get_id_ = get_id; }

private:
    struct Known {
        ThreadEntry entry;
        jobject ref;         // weak global reference, null once the thread ended
        uint64_t end = 0;    // its number among the ends, 0 while it runs
    };
    // key 0: a new key.
    uint64_t add_locked(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, int32_t tid, uint64_t key = 0);

    mutable std::mutex mutex_;
    void end_locked(Known& known);
    // The entry whose weak reference is this thread object, or null.
    const Known* find_object_locked(JNIEnv* jni, jobject thread) const;

    std::unordered_map<int32_t, uint64_t> by_tid_;
    std::unordered_map<int32_t, uint64_t> internal_by_tid_;
    std::unordered_map<uint64_t, Known> threads_;  // by key
    uint64_t next_key_ = 1;
    uint64_t ends_ = 0;
    uint64_t oldest_held_end_ = 0;  // the smallest end number still in threads_, 0 for none
    jmethodID get_id_ = nullptr;
};

}  // namespace stackreq
