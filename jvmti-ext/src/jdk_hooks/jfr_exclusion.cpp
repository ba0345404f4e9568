#include "jdk_hooks/jfr_exclusion.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "agent/agent_state.h"
#include "agent/log.h"
#include "emitter/jvmti_records.h"
#include "hotspot/method_ids.h"
#include "hotspot/vm_structs.h"
#include "jdk_hooks/class_rewriter.h"
#include "native_unwind/safe_read.h"
#include "request/thread_registry.h"

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
    int32_t tid = jvmti_records().threads.tid_of(jni, thread);
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

// JFR's class jdk.jfr.internal.JVM when it is loaded (a local reference), else null.
jclass loaded_jvm_class(jvmtiEnv* jvmti, JNIEnv* jni) {
    jint count = 0;
    jclass* classes = nullptr;
    if (jvmti->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) return nullptr;
    jclass found = nullptr;
    for (jint i = 0; i < count; i++) {
        char* signature = nullptr;
        if (found == nullptr && jvmti->GetClassSignature(classes[i], &signature, nullptr) == JVMTI_ERROR_NONE &&
            std::strcmp(signature, "Ljdk/jfr/internal/JVM;") == 0) {
            found = classes[i];
        } else {
            jni->DeleteLocalRef(classes[i]);
        }
        jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
    return found;
}

bool clear_exception(JNIEnv* jni) {
    if (!jni->ExceptionCheck()) return false;
    jni->ExceptionClear();
    return true;
}

// The Method* of method, a method of klass (a local reference): found among klass's methods
// (hotspot/method_ids.h), else in the word the jmethodID points to (JDK 11 to 25).
bool method_address_of(const VmStructs& vm, jclass klass, jmethodID method, uintptr_t* out) {
    MethodIdLayout layout;
    std::string error;
    uintptr_t instance_klass = 0;
    if (read_method_id_layout(vm, &layout, &error) && instance_klass_of(layout, klass, &instance_klass) &&
        method_of(layout, instance_klass, method, out)) {
        return true;
    }
    return read_at(reinterpret_cast<uintptr_t>(method), out) && *out != 0;
}

// Where the natives are bound, for an attach: the JDK's function of a native method is the word
// right after its Method (Method::native_function_addr() is `this + 1`), sizeof(Method) as HotSpot
// publishes it for its serviceability agent (vm_structs.h). Null unless that word points into
// libjvm.so.
ThreadNative bound_function(JNIEnv* jni, jclass jvm, const char* name) {
    jmethodID method = jni->GetStaticMethodID(jvm, name, "(Ljava/lang/Thread;)V");  // JDK 25
    if (method == nullptr) {
        clear_exception(jni);
        method = jni->GetMethodID(jvm, name, "(Ljava/lang/Thread;)V");  // JDK 17
        if (method == nullptr) {
            clear_exception(jni);
            return nullptr;
        }
    }
    VmStructs vm;
    uint64_t method_size = 0;
    uintptr_t method_address = 0, function = 0;
    if (!vm.init() || !vm.type_size("Method", &method_size) || !method_address_of(vm, jvm, method, &method_address) ||
        !read_at(method_address + method_size, &function) || function == 0) {
        return nullptr;
    }
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(function), &info) == 0 || info.dli_fname == nullptr ||
        std::strstr(info.dli_fname, "libjvm.so") == nullptr) {
        return nullptr;
    }
    return reinterpret_cast<ThreadNative>(function);
}

// Binds the stand-ins after an attach; true when they are bound.
bool stand_in_after_attach(JNIEnv* jni, jclass jvm) {
    ThreadNative jdk_exclude = bound_function(jni, jvm, "exclude");
    ThreadNative jdk_include = bound_function(jni, jvm, "include");
    if (jdk_exclude == nullptr || jdk_include == nullptr) {
        Log::warn("JFR's exclude/include not found bound in libjvm: threads JFR excludes are not refused");
        return false;
    }
    // Set before the stand-ins can run; on_native_method_bind leaves them (the address is ours).
    g_jdk_exclude.store(jdk_exclude, std::memory_order_release);
    g_jdk_include.store(jdk_include, std::memory_order_release);
    JNINativeMethod methods[] = {
        {const_cast<char*>("exclude"), const_cast<char*>("(Ljava/lang/Thread;)V"), reinterpret_cast<void*>(exclude)},
        {const_cast<char*>("include"), const_cast<char*>("(Ljava/lang/Thread;)V"), reinterpret_cast<void*>(include)},
    };
    if (jni->RegisterNatives(jvm, methods, 2) != JNI_OK) {
        clear_exception(jni);
        Log::warn("RegisterNatives of JFR's exclude/include failed: threads JFR excludes are not refused");
        return false;
    }
    return true;
}

// The class file of io.stackreq.jfr.boot.ExclusionRebinder from the events jar (on the system class
// path since load), or null.
jbyteArray rebinder_class_bytes(JNIEnv* jni) {
    jclass loader = jni->FindClass("java/lang/ClassLoader");
    jmethodID resource = loader == nullptr ? nullptr
                                           : jni->GetStaticMethodID(loader, "getSystemResourceAsStream",
                                                                    "(Ljava/lang/String;)Ljava/io/InputStream;");
    jstring name = resource == nullptr ? nullptr : jni->NewStringUTF("io/stackreq/jfr/boot/ExclusionRebinder.class");
    jobject in = name == nullptr ? nullptr : jni->CallStaticObjectMethod(loader, resource, name);
    jbyteArray bytes = nullptr;
    if (!clear_exception(jni) && in != nullptr) {
        jclass stream = jni->GetObjectClass(in);
        jmethodID read_all = jni->GetMethodID(stream, "readAllBytes", "()[B");
        if (read_all != nullptr) bytes = static_cast<jbyteArray>(jni->CallObjectMethod(in, read_all));
        jmethodID close = jni->GetMethodID(stream, "close", "()V");
        if (close != nullptr) jni->CallVoidMethod(in, close);
        if (clear_exception(jni)) bytes = nullptr;
    }
    clear_exception(jni);
    return bytes;
}

// ExclusionRebinder.bind(): binds the stand-ins with a boot class's frame on top.
jclass g_rebinding_jvm = nullptr;
bool g_rebound = false;
void JNICALL bind_from_boot_frame(JNIEnv* jni, jclass) { g_rebound = stand_in_after_attach(jni, g_rebinding_jvm); }

// Binds the stand-ins from ExclusionRebinder's frames, so that the JVM does not warn about a
// platform native bound again from another class loader; directly (with those warnings) when
// the class cannot be defined. Attach only, on the attaching thread; true when they are bound.
bool stand_in_after_attach_quietly(JNIEnv* jni, jclass jvm) {
    jbyteArray bytes = rebinder_class_bytes(jni);
    jclass rebinder = bytes == nullptr ? nullptr : define_boot_class(jni, "io/stackreq/jfr/boot/ExclusionRebinder", bytes);
    JNINativeMethod bind = {const_cast<char*>("bind"), const_cast<char*>("()V"),
                            reinterpret_cast<void*>(bind_from_boot_frame)};
    jmethodID run = nullptr;
    if (rebinder != nullptr && jni->RegisterNatives(rebinder, &bind, 1) == JNI_OK) {
        run = jni->GetStaticMethodID(rebinder, "run", "()V");
    }
    if (run == nullptr) {
        clear_exception(jni);
        Log::debug("ExclusionRebinder unavailable: JFR's natives are bound again from the attach thread");
        return stand_in_after_attach(jni, jvm);
    }
    g_rebinding_jvm = jvm;
    g_rebound = false;
    jni->CallStaticVoidMethod(rebinder, run);
    clear_exception(jni);
    g_rebinding_jvm = nullptr;
    return g_rebound;
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
    // Our own function bound again (by an agent that registers what it saw): never the JDK's.
    if (jdk_function == nullptr || address == reinterpret_cast<void*>(ours) || !declared_by_jfr(jvmti, jni, method)) {
        return;
    }
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

namespace {

// Whether JFR's class JVM has exclude(Thread): static on JDK 25, an instance method on 17, none on 11.
bool excludes_threads(JNIEnv* jni, jclass jvm) {
    if (jni->GetStaticMethodID(jvm, "exclude", "(Ljava/lang/Thread;)V") != nullptr) return true;
    clear_exception(jni);
    const bool instance = jni->GetMethodID(jvm, "exclude", "(Ljava/lang/Thread;)V") != nullptr;
    clear_exception(jni);
    return instance;
}

// After JFR bound exclude and include without stackreq (an attach, or JFR started in the primordial
// phase): binds the stand-ins and marks the threads JFR excludes already; when names the case.
void follow_bound_natives(jvmtiEnv* jvmti, JNIEnv* jni, const char* when);

}  // namespace

void check_at_jfr_start(jvmtiEnv* jvmti, JNIEnv* jni) {
    jclass jvm = jni->FindClass("jdk/jfr/internal/JVM");
    const bool has_exclude = jvm != nullptr && excludes_threads(jni, jvm);
    if (jvm != nullptr) jni->DeleteLocalRef(jvm);
    clear_exception(jni);
    if (!has_exclude) {
        Log::info("JFR excludes no thread on this JDK (no jdk.jfr.internal.JVM.exclude): nothing to follow");
        return;
    }
    if (g_jdk_exclude.load(std::memory_order_acquire) == nullptr ||
        g_jdk_include.load(std::memory_order_acquire) == nullptr) {
        // JFR bound them before JVMTI could name a method (-XX:FlightRecorderOptions starts JFR in
        // the primordial phase): as after an attach.
        follow_bound_natives(jvmti, jni, "JFR started before the live phase");
        return;
    }
    Log::info("JFR's thread exclusions followed");
}

void on_attach(jvmtiEnv* jvmti, JNIEnv* jni) { follow_bound_natives(jvmti, jni, "attach"); }

namespace {

void follow_bound_natives(jvmtiEnv* jvmti, JNIEnv* jni, const char* when) {
    jclass jvm = loaded_jvm_class(jvmti, jni);
    jint status = 0;
    if (jvm == nullptr || jvmti->GetClassStatus(jvm, &status) != JVMTI_ERROR_NONE ||
        (status & JVMTI_CLASS_STATUS_INITIALIZED) == 0) {
        // JFR's static initializer binds the natives later: NativeMethodBind, as at startup.
        Log::debug("JFR not initialized yet: its exclusions are followed from its start on");
        if (jvm != nullptr) jni->DeleteLocalRef(jvm);
        return;
    }
    if (!excludes_threads(jni, jvm)) {
        // JDK 11: nothing to follow (said when the JFR integration starts).
        jni->DeleteLocalRef(jvm);
        return;
    }
    // JFR bound exclude and include before stackreq was here, and binding the same function again
    // posts no NativeMethodBind (measured: calling JFR's JVM.registerNatives() again gave none,
    // and a JVM warning for each of its natives). So the JDK's functions are read where HotSpot
    // keeps them, and the stand-ins bound with RegisterNatives from a boot class's frame: bound
    // from the attach thread, the JVM warns once for each on the application's standard output
    // ("Re-registering of platform native method ... from code in a different classloader").
    const bool followed = g_jdk_exclude.load(std::memory_order_acquire) != nullptr ||
                          stand_in_after_attach_quietly(jni, jvm);
    // Then the threads excluded before: JVM.isExcluded(Thread) is static on JDK 25, an instance
    // method of JVM.getJVM() on 17.
    jobject instance = nullptr;
    jmethodID is_excluded = jni->GetStaticMethodID(jvm, "isExcluded", "(Ljava/lang/Thread;)Z");
    if (is_excluded == nullptr) {
        clear_exception(jni);
        jmethodID get_jvm = jni->GetStaticMethodID(jvm, "getJVM", "()Ljdk/jfr/internal/JVM;");
        if (get_jvm != nullptr) instance = jni->CallStaticObjectMethod(jvm, get_jvm);
        is_excluded = instance == nullptr ? nullptr : jni->GetMethodID(jvm, "isExcluded", "(Ljava/lang/Thread;)Z");
        clear_exception(jni);
    }
    jint count = 0;
    jthread* threads = nullptr;
    int excluded = 0;
    if (is_excluded == nullptr) {
        Log::warn("JVM.isExcluded(Thread) not found: threads JFR excluded already are not refused");
    } else if (jvmti->GetAllThreads(&count, &threads) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count; i++) {
            jboolean yes = instance != nullptr ? jni->CallBooleanMethod(instance, is_excluded, threads[i])
                                               : jni->CallStaticBooleanMethod(jvm, is_excluded, threads[i]);
            if (!clear_exception(jni) && yes) {
                mark(jni, threads[i], true);
                excluded++;
            }
            jni->DeleteLocalRef(threads[i]);
        }
        jvmti->Deallocate(reinterpret_cast<unsigned char*>(threads));
    }
    Log::info("%s: JFR's exclusions %s, %d running threads excluded already", when,
              followed ? "followed" : "not followed", excluded);
    if (instance != nullptr) jni->DeleteLocalRef(instance);
    jni->DeleteLocalRef(jvm);
}

}  // namespace

}  // namespace JfrExclusion
}  // namespace stackreq
