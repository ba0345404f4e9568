#include "jfr_exclusion.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "agent_state.h"
#include "thread_registry.h"

namespace stackreq {
namespace JfrExclusion {

namespace {

// JVM.exclude/include(Thread): an instance method on JDK 17, static on 25; the same ABI.
using ThreadNative = void(JNICALL*)(JNIEnv*, jobject, jobject);
std::atomic<ThreadNative> g_jdk_exclude{nullptr};
std::atomic<ThreadNative> g_jdk_include{nullptr};

// Threads excluded before they started (weak references), applied at their ThreadStart.
std::mutex g_unstarted_mutex;
std::vector<jobject> g_unstarted;

void mark(JNIEnv* jni, jobject thread, bool excluded) {
    int32_t tid = agent().threads.tid_of(jni, thread);
    if (tid != 0) {
        ThreadRegistry::set_jfr_excluded(tid, excluded);
        return;
    }
    std::lock_guard<std::mutex> guard(g_unstarted_mutex);
    for (auto it = g_unstarted.begin(); it != g_unstarted.end(); ++it) {
        if (jni->IsSameObject(*it, thread)) {
            if (excluded) return;
            jni->DeleteWeakGlobalRef(*it);
            g_unstarted.erase(it);
            return;
        }
    }
    if (excluded) g_unstarted.push_back(jni->NewWeakGlobalRef(thread));
}

void JNICALL exclude(JNIEnv* jni, jobject receiver, jobject thread) {
    g_jdk_exclude.load(std::memory_order_acquire)(jni, receiver, thread);
    if (!jni->ExceptionCheck() && thread != nullptr) mark(jni, thread, true);
}

void JNICALL include(JNIEnv* jni, jobject receiver, jobject thread) {
    g_jdk_include.load(std::memory_order_acquire)(jni, receiver, thread);
    if (!jni->ExceptionCheck() && thread != nullptr) mark(jni, thread, false);
}

bool declared_by_jfr(jvmtiEnv* jvmti, JNIEnv* jni, jmethodID method) {
    jclass klass = nullptr;
    if (jvmti->GetMethodDeclaringClass(method, &klass) != JVMTI_ERROR_NONE) return false;
    char* signature = nullptr;
    bool jfr = jvmti->GetClassSignature(klass, &signature, nullptr) == JVMTI_ERROR_NONE &&
               std::strcmp(signature, "Ljdk/jfr/internal/JVM;") == 0;
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
    if (jni != nullptr) jni->DeleteLocalRef(klass);
    return jfr;
}

}  // namespace

bool request_capability(jvmtiEnv* jvmti) {
    jvmtiCapabilities capabilities{};
    capabilities.can_generate_native_method_bind_events = 1;
    return jvmti->AddCapabilities(&capabilities) == JVMTI_ERROR_NONE;
}

void JNICALL on_native_method_bind(jvmtiEnv* jvmti, JNIEnv* jni, jthread, jmethodID method, void* address,
                                   void** new_address) {
    char* name = nullptr;
    char* signature = nullptr;
    if (jvmti->GetMethodName(method, &name, &signature, nullptr) != JVMTI_ERROR_NONE) return;
    const bool thread_argument = std::strcmp(signature, "(Ljava/lang/Thread;)V") == 0;
    std::atomic<ThreadNative>* jdk_function = nullptr;
    ThreadNative ours = nullptr;
    if (thread_argument && std::strcmp(name, "exclude") == 0) {
        jdk_function = &g_jdk_exclude;
        ours = exclude;
    } else if (thread_argument && std::strcmp(name, "include") == 0) {
        jdk_function = &g_jdk_include;
        ours = include;
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
    if (jdk_function == nullptr || !declared_by_jfr(jvmti, jni, method)) return;
    jdk_function->store(reinterpret_cast<ThreadNative>(address), std::memory_order_release);
    *new_address = reinterpret_cast<void*>(ours);
}

void on_thread_start(JNIEnv* jni, jthread thread, int32_t tid) {
    std::lock_guard<std::mutex> guard(g_unstarted_mutex);
    for (auto it = g_unstarted.begin(); it != g_unstarted.end();) {
        bool started = jni->IsSameObject(*it, thread);
        if (started) ThreadRegistry::set_jfr_excluded(tid, true);
        if (started || jni->IsSameObject(*it, nullptr)) {
            jni->DeleteWeakGlobalRef(*it);
            it = g_unstarted.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace JfrExclusion
}  // namespace stackreq
