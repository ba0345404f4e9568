#include "thread_directory.h"

namespace stackreq {

uint64_t ThreadDirectory::add_locked(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, int32_t tid) {
    Known known;
    known.entry.id = threads_.size() + 1;
    known.entry.os_thread_id = tid;
    known.entry.java_thread_id = 0;
    jvmtiThreadInfo info{};
    if (jvmti->GetThreadInfo(thread, &info) == JVMTI_ERROR_NONE) {
        if (info.name != nullptr) {
            known.entry.java_name = info.name;
            jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
        }
        if (info.thread_group != nullptr) jni->DeleteLocalRef(info.thread_group);
        if (info.context_class_loader != nullptr) jni->DeleteLocalRef(info.context_class_loader);
    }
    known.entry.os_name = known.entry.java_name;
    if (get_id_ != nullptr) {
        known.entry.java_thread_id = jni->CallLongMethod(thread, get_id_);
        if (jni->ExceptionCheck()) jni->ExceptionClear();
    }
    known.ref = jni->NewWeakGlobalRef(thread);
    threads_.push_back(known);
    if (tid != 0) by_tid_[tid] = known.entry.id;
    return known.entry.id;
}

void ThreadDirectory::on_thread_start(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, int32_t tid) {
    std::lock_guard<std::mutex> guard(mutex_);
    add_locked(jvmti, jni, thread, tid);
}

void ThreadDirectory::on_thread_end(JNIEnv* jni, int32_t tid) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto found = by_tid_.find(tid);
    if (found == by_tid_.end()) return;
    Known& known = threads_[found->second - 1];
    if (known.ref != nullptr) {
        jni->DeleteWeakGlobalRef(known.ref);
        known.ref = nullptr;
    }
}

uint64_t ThreadDirectory::key_for_tid(int32_t tid) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto found = by_tid_.find(tid);
    return found == by_tid_.end() ? 0 : found->second;
}

uint64_t ThreadDirectory::key_for_object(jvmtiEnv* jvmti, JNIEnv* jni, jobject thread) {
    std::lock_guard<std::mutex> guard(mutex_);
    for (const Known& known : threads_) {
        if (known.ref != nullptr && jni->IsSameObject(known.ref, thread)) return known.entry.id;
    }
    return add_locked(jvmti, jni, static_cast<jthread>(thread), 0);
}

bool ThreadDirectory::entry(uint64_t key, ThreadEntry* out) const {
    std::lock_guard<std::mutex> guard(mutex_);
    if (key == 0 || key > threads_.size()) return false;
    *out = threads_[key - 1].entry;
    return true;
}

}  // namespace stackreq
