#include "hotspot/hotspot_threads.h"

#include "hotspot/vm_structs.h"
#include "native_unwind/safe_read.h"

namespace stackreq {

namespace {

// A JavaThread field, declared by JavaThread or by its superclass Thread depending on the JDK
// (JDK 17: JavaThread::_osthread; 25: Thread::_osthread).
bool field_offset(const VmStructs& vm_structs, const char* field, uint64_t* out) {
    return vm_structs.field_offset("JavaThread", field, out) || vm_structs.field_offset("Thread", field, out);
}

// A JavaThread is far smaller than this; a larger distance means eetop is not what it was.
constexpr intptr_t kMaxJniEnvironmentOffset = 1 << 16;

}  // namespace

uintptr_t HotSpotThreads::java_thread_of(JNIEnv* jni, jthread thread) const {
    jlong eetop = jni->GetLongField(thread, eetop_);
    if (jni->ExceptionCheck()) {
        jni->ExceptionClear();
        return 0;
    }
    return static_cast<uintptr_t>(eetop);
}

bool HotSpotThreads::init(JNIEnv* jni, jthread current, std::string* error) {
    VmStructs vm_structs;
    if (!vm_structs.init()) {
        *error = "libjvm publishes no gHotSpotVMStructs table";
        return false;
    }
    const char* missing = nullptr;
    if (!field_offset(vm_structs, "_osthread", &osthread_)) missing = "JavaThread::_osthread";
    if (!vm_structs.field_offset("OSThread", "_thread_id", &thread_id_)) missing = "OSThread::_thread_id";
    if (!field_offset(vm_structs, "_stack_base", &stack_base_)) missing = "JavaThread::_stack_base";
    if (!field_offset(vm_structs, "_stack_size", &stack_size_)) missing = "JavaThread::_stack_size";
    if (missing != nullptr) {
        *error = std::string("gHotSpotVMStructs has no ") + missing;
        return false;
    }
    jclass thread_class = jni->FindClass("java/lang/Thread");
    eetop_ = thread_class == nullptr ? nullptr : jni->GetFieldID(thread_class, "eetop", "J");
    if (eetop_ == nullptr) {
        jni->ExceptionClear();
        *error = "java.lang.Thread has no field eetop";
        return false;
    }
    uintptr_t own = java_thread_of(jni, current);
    jni_environment_ = reinterpret_cast<intptr_t>(jni) - static_cast<intptr_t>(own);
    if (own == 0 || jni_environment_ <= 0 || jni_environment_ > kMaxJniEnvironmentOffset) {
        *error = "the JNIEnv is not inside the JavaThread";
        return false;
    }
    return true;
}

bool HotSpotThreads::describe(JNIEnv* jni, jthread thread, RunningThread* out) const {
    uintptr_t java_thread = java_thread_of(jni, thread);
    if (java_thread == 0) return false;
    uintptr_t osthread = 0;
    int32_t tid = 0;
    uintptr_t stack_base = 0;
    size_t stack_size = 0;
    if (!read_at(java_thread + osthread_, &osthread) || osthread == 0 || !read_at(osthread + thread_id_, &tid) ||
        !read_at(java_thread + stack_base_, &stack_base) || !read_at(java_thread + stack_size_, &stack_size)) {
        return false;
    }
    // The thread may have exited (eetop cleared) while its fields were read.
    if (java_thread_of(jni, thread) != java_thread || tid <= 0 || stack_size == 0 || stack_size > stack_base) {
        return false;
    }
    out->tid = tid;
    out->jni = reinterpret_cast<JNIEnv*>(java_thread + jni_environment_);
    out->stack_low = stack_base - stack_size;
    out->stack_size = stack_size;
    return true;
}

}  // namespace stackreq
