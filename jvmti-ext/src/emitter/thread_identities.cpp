#include "emitter/thread_identities.h"

#include <fcntl.h>
#include <unistd.h>

namespace stackreq {

uint64_t ThreadIdentities::add_locked(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, int32_t tid, uint64_t key) {
    Known known;
    known.entry.id = key != 0 ? key : next_key_++;
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
    threads_.emplace(known.entry.id, known);
    if (tid != 0) by_tid_[tid] = known.entry.id;
    return known.entry.id;
}

void ThreadIdentities::on_thread_start(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, int32_t tid) {
    std::lock_guard<std::mutex> guard(mutex_);
    add_locked(jvmti, jni, thread, tid);
}

void ThreadIdentities::on_thread_end(JNIEnv* jni, int32_t tid) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto found = by_tid_.find(tid);
    if (found == by_tid_.end()) return;
    Known& known = threads_.at(found->second);
    if (known.ref != nullptr) {
        jni->DeleteWeakGlobalRef(known.ref);
        known.ref = nullptr;
    }
    end_locked(known);
}

void ThreadIdentities::end_locked(Known& known) {
    if (known.end != 0) return;
    known.end = ++ends_;
    if (oldest_held_end_ == 0) oldest_held_end_ = known.end;
}

uint64_t ThreadIdentities::on_virtual_mount(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
    // The key rides in the virtual thread's JVMTI thread-local storage: a mount costs no lookup.
    void* stored = nullptr;
    if (jvmti->GetThreadLocalStorage(thread, &stored) != JVMTI_ERROR_NONE) return 0;
    uint64_t key = reinterpret_cast<uintptr_t>(stored);
    std::lock_guard<std::mutex> guard(mutex_);
    if (key != 0) {
        auto found = threads_.find(key);
        if (found != threads_.end()) {
            found->second.end = 0;
            return key;
        }
    }
    // New, or forgotten while it was unmounted: registered (again, under the same key).
    key = add_locked(jvmti, jni, thread, 0, key);
    Known& known = threads_.at(key);
    known.entry.is_virtual = true;
    known.entry.os_name.clear();
    // Found by its storage, never by object (a request naming a virtual thread is unsupported).
    if (known.ref != nullptr) {
        jni->DeleteWeakGlobalRef(known.ref);
        known.ref = nullptr;
    }
    jvmti->SetThreadLocalStorage(thread, reinterpret_cast<void*>(static_cast<uintptr_t>(key)));
    return key;
}

void ThreadIdentities::on_virtual_unmount(uint64_t key) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto found = threads_.find(key);
    if (found != threads_.end()) end_locked(found->second);
}

bool ThreadIdentities::holds_ended(uint64_t ended_before) const {
    std::lock_guard<std::mutex> guard(mutex_);
    return oldest_held_end_ != 0 && oldest_held_end_ <= ended_before;
}

uint64_t ThreadIdentities::end_count() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return ends_;
}

void ThreadIdentities::forget_ended(uint64_t ended_before, const std::unordered_set<uint64_t>& referenced) {
    std::lock_guard<std::mutex> guard(mutex_);
    oldest_held_end_ = 0;
    for (auto it = threads_.begin(); it != threads_.end();) {
        const Known& known = it->second;
        if (known.end == 0 || known.end > ended_before || referenced.count(it->first) != 0) {
            if (known.end != 0 && (oldest_held_end_ == 0 || known.end < oldest_held_end_)) oldest_held_end_ = known.end;
            ++it;
            continue;
        }
        auto by_tid = by_tid_.find(static_cast<int32_t>(known.entry.os_thread_id));
        if (by_tid != by_tid_.end() && by_tid->second == it->first) by_tid_.erase(by_tid);
        it = threads_.erase(it);
    }
}

uint64_t ThreadIdentities::key_for_tid(int32_t tid) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto found = by_tid_.find(tid);
    return found == by_tid_.end() ? 0 : found->second;
}

namespace {

// The kernel's name of one of this process's threads, "" when it has ended.
std::string os_thread_name(int32_t tid) {
    const std::string path = "/proc/self/task/" + std::to_string(tid) + "/comm";
    char name[32];
    ssize_t length = -1;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        length = read(fd, name, sizeof(name));
        close(fd);
    }
    if (length <= 0) return std::string();
    if (name[length - 1] == '\n') length--;
    return std::string(name, static_cast<size_t>(length));
}

}  // namespace

uint64_t ThreadIdentities::key_for_internal_thread(int32_t tid) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto found = internal_by_tid_.find(tid);
    if (found != internal_by_tid_.end()) return found->second;
    Known known;
    known.entry.id = next_key_++;
    known.entry.os_thread_id = tid;
    known.entry.java_thread_id = 0;
    known.entry.os_name = os_thread_name(tid);
    known.ref = nullptr;
    threads_.emplace(known.entry.id, known);
    internal_by_tid_[tid] = known.entry.id;
    return known.entry.id;
}

const ThreadIdentities::Known* ThreadIdentities::find_object_locked(JNIEnv* jni, jobject thread) const {
    for (const auto& known : threads_) {
        if (known.second.ref != nullptr && jni->IsSameObject(known.second.ref, thread)) return &known.second;
    }
    return nullptr;
}

uint64_t ThreadIdentities::key_for_object(jvmtiEnv* jvmti, JNIEnv* jni, jobject thread) {
    std::lock_guard<std::mutex> guard(mutex_);
    const Known* known = find_object_locked(jni, thread);
    return known != nullptr ? known->entry.id : add_locked(jvmti, jni, static_cast<jthread>(thread), 0);
}

int32_t ThreadIdentities::tid_of(JNIEnv* jni, jobject thread) const {
    std::lock_guard<std::mutex> guard(mutex_);
    const Known* known = find_object_locked(jni, thread);
    return known != nullptr ? static_cast<int32_t>(known->entry.os_thread_id) : 0;
}

jobject ThreadIdentities::local_ref(JNIEnv* jni, uint64_t key) const {
    std::lock_guard<std::mutex> guard(mutex_);
    auto found = threads_.find(key);
    if (found == threads_.end() || found->second.ref == nullptr) return nullptr;
    return jni->NewLocalRef(found->second.ref);
}

bool ThreadIdentities::entry(uint64_t key, ThreadEntry* out) const {
    std::lock_guard<std::mutex> guard(mutex_);
    auto found = threads_.find(key);
    if (found == threads_.end()) return false;
    *out = found->second.entry;
    return true;
}

}  // namespace stackreq
