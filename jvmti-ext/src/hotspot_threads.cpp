#include "hotspot_threads.h"

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>

namespace stackreq {

namespace {

// The layout of gHotSpotVMStructs entries, published by libjvm beside the table.
struct VmStructsLayout {
    const char* entries;
    uint64_t stride, type_name, field_name, offset;
};

const void* jvm_symbol(const char* name) {
    void* symbol = dlsym(RTLD_DEFAULT, name);
    if (symbol == nullptr) {
        void* libjvm = dlopen("libjvm.so", RTLD_NOW | RTLD_NOLOAD);
        if (libjvm != nullptr) symbol = dlsym(libjvm, name);
    }
    return symbol;
}

bool read_layout(VmStructsLayout* layout) {
    const void* table = jvm_symbol("gHotSpotVMStructs");
    const void* stride = jvm_symbol("gHotSpotVMStructEntryArrayStride");
    const void* type_name = jvm_symbol("gHotSpotVMStructEntryTypeNameOffset");
    const void* field_name = jvm_symbol("gHotSpotVMStructEntryFieldNameOffset");
    const void* offset = jvm_symbol("gHotSpotVMStructEntryOffsetOffset");
    if (table == nullptr || stride == nullptr || type_name == nullptr || field_name == nullptr || offset == nullptr) {
        return false;
    }
    layout->entries = *static_cast<const char* const*>(table);
    layout->stride = *static_cast<const uint64_t*>(stride);
    layout->type_name = *static_cast<const uint64_t*>(type_name);
    layout->field_name = *static_cast<const uint64_t*>(field_name);
    layout->offset = *static_cast<const uint64_t*>(offset);
    return layout->entries != nullptr;
}

// The table ends with an entry whose type name is null.
bool declared_offset(const VmStructsLayout& layout, const char* type, const char* field, uint64_t* out) {
    for (const char* entry = layout.entries;; entry += layout.stride) {
        const char* entry_type = *reinterpret_cast<const char* const*>(entry + layout.type_name);
        if (entry_type == nullptr) return false;
        const char* entry_field = *reinterpret_cast<const char* const*>(entry + layout.field_name);
        if (entry_field != nullptr && std::strcmp(entry_type, type) == 0 && std::strcmp(entry_field, field) == 0) {
            *out = *reinterpret_cast<const uint64_t*>(entry + layout.offset);
            return true;
        }
    }
}

// A JavaThread field, declared by JavaThread or by its superclass Thread depending on the JDK
// (JDK 17: JavaThread::_osthread; 25: Thread::_osthread).
bool field_offset(const VmStructsLayout& layout, const char* field, uint64_t* out) {
    return declared_offset(layout, "JavaThread", field, out) || declared_offset(layout, "Thread", field, out);
}

// Copies size bytes at address, or returns false when they are not mapped.
bool safe_read(uintptr_t address, void* out, size_t size) {
    iovec local{out, size};
    iovec remote{reinterpret_cast<void*>(address), size};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

template <typename T>
bool read_at(uintptr_t address, T* out) {
    return safe_read(address, out, sizeof(T));
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
    VmStructsLayout layout;
    if (!read_layout(&layout)) {
        *error = "libjvm publishes no gHotSpotVMStructs table";
        return false;
    }
    const char* missing = nullptr;
    if (!field_offset(layout, "_osthread", &osthread_)) missing = "JavaThread::_osthread";
    if (!declared_offset(layout, "OSThread", "_thread_id", &thread_id_)) missing = "OSThread::_thread_id";
    if (!field_offset(layout, "_stack_base", &stack_base_)) missing = "JavaThread::_stack_base";
    if (!field_offset(layout, "_stack_size", &stack_size_)) missing = "JavaThread::_stack_size";
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
