// Threads that were running before stackreq was attached to a live JVM got no ThreadStart, so
// no stackreq code ever ran on them and the registry has nothing to find them by. What a request
// from such a thread needs (its JNIEnv, OS tid and stack bounds) is read here, in a normal
// context, from the HotSpot JavaThread behind its java.lang.Thread (the field "eetop"), with the
// field offsets HotSpot publishes for its serviceability agent (the gHotSpotVMStructs table).
// Every read of another thread's memory goes through process_vm_readv, which fails instead of
// faulting when that thread has just exited and its JavaThread is gone.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace stackreq {

struct RunningThread {
    int32_t tid;
    JNIEnv* jni;
    uintptr_t stack_low;   // lowest address of the stack mapping (guard zones included)
    size_t stack_size;
};

class HotSpotThreads {
public:
    // Finds the field offsets and learns where a JavaThread keeps its JNIEnv from the calling
    // thread (jni and current are its own). Returns false and sets *error when this JVM does not
    // publish what is needed.
    bool init(JNIEnv* jni, jthread current, std::string* error);
    // Reads thread's tid, JNIEnv and stack. False when the thread is not alive (or no longer).
    bool describe(JNIEnv* jni, jthread thread, RunningThread* out) const;
    // After init: where a JavaThread keeps its JNIEnv (JNIEnv* - JavaThread*).
    intptr_t jni_environment_offset() const { return jni_environment_; }
    // Where a Thread keeps its stack's high end and its size (valid after init).
    uint64_t stack_base_offset() const { return stack_base_; }
    uint64_t stack_size_offset() const { return stack_size_; }

private:
    uintptr_t java_thread_of(JNIEnv* jni, jthread thread) const;

    jfieldID eetop_ = nullptr;
    intptr_t jni_environment_ = 0;  // JNIEnv's offset in a JavaThread
    uint64_t osthread_ = 0;         // JavaThread::_osthread
    uint64_t thread_id_ = 0;        // OSThread::_thread_id
    uint64_t stack_base_ = 0;       // JavaThread::_stack_base (the high end)
    uint64_t stack_size_ = 0;       // JavaThread::_stack_size
};

}  // namespace stackreq
