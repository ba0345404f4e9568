#include "agent/virtual_threads.h"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "agent/agent_state.h"
#include "agent/extension_lists.h"
#include "agent/log.h"
#include "emitter/jvmti_records.h"
#include "request/thread_registry.h"

namespace stackreq {
namespace VirtualThreads {

namespace {

// can_support_virtual_threads, the 45th capability bit (JDK 21's jvmti.h); the build's JDK 17
// headers do not name it.
constexpr unsigned kSupportVirtualThreadsBit = 44;

void JNICALL on_mount(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
    ThreadRegistry::set_current_mounted(jvmti_records().threads.on_virtual_mount(jvmti, jni, thread));
}

void JNICALL on_unmount(jvmtiEnv*, JNIEnv*, jthread) {
    ThreadSlotView view;
    int32_t tid = 0;
    if (!ThreadRegistry::find_current(&view, &tid) || view.mounted_thread_key == 0) return;
    ThreadRegistry::set_current_mounted(0);
    jvmti_records().threads.on_virtual_unmount(view.mounted_thread_key);
}

bool listen(jvmtiEnv* jvmti, const jvmtiExtensionEventInfo& event) {
    jvmtiExtensionEvent callback = nullptr;
    if (std::strcmp(event.id, "com.sun.hotspot.events.VirtualThreadMount") == 0) {
        callback = reinterpret_cast<jvmtiExtensionEvent>(on_mount);
    } else if (std::strcmp(event.id, "com.sun.hotspot.events.VirtualThreadUnmount") == 0) {
        callback = reinterpret_cast<jvmtiExtensionEvent>(on_unmount);
    } else {
        return false;
    }
    return jvmti->SetExtensionEventCallback(event.extension_event_index, callback) == JVMTI_ERROR_NONE &&
           jvmti->SetEventNotificationMode(JVMTI_ENABLE, static_cast<jvmtiEvent>(event.extension_event_index),
                                           nullptr) == JVMTI_ERROR_NONE;
}

}  // namespace

bool start(jvmtiEnv* jvmti) {
    jint count = 0;
    jvmtiExtensionEventInfo* events = nullptr;
    if (jvmti->GetExtensionEvents(&count, &events) != JVMTI_ERROR_NONE) return false;
    bool has_mounts = false;
    for (jint i = 0; i < count; i++) {
        has_mounts |= std::strcmp(events[i].id, "com.sun.hotspot.events.VirtualThreadMount") == 0;
    }
    int listening = 0;
    if (has_mounts) {
        jvmtiCapabilities capabilities{};
        uint32_t* capability_words = reinterpret_cast<uint32_t*>(&capabilities);
        capability_words[kSupportVirtualThreadsBit / 32] |= 1u << (kSupportVirtualThreadsBit % 32);
        if (jvmti->AddCapabilities(&capabilities) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < count; i++) listening += listen(jvmti, events[i]) ? 1 : 0;
        }
        if (listening != 2) {
            Log::warn("cannot follow virtual thread mounts: requests in virtual threads go to their carrier");
        }
    }
    free_extension_list(jvmti, count, events);
    return listening == 2;
}

void resolve_entry_method(JNIEnv* jni) {
    jclass continuation = jni->FindClass("jdk/internal/vm/Continuation");
    if (continuation == nullptr) {
        jni->ExceptionClear();
        return;
    }
    jmethodID entry = jni->GetStaticMethodID(continuation, "enterSpecial", "(Ljdk/internal/vm/Continuation;ZZ)V");
    if (entry == nullptr) jni->ExceptionClear();
    jmethodID bottom = jni->GetStaticMethodID(continuation, "enter", "(Ljdk/internal/vm/Continuation;Z)V");
    if (bottom == nullptr) jni->ExceptionClear();
    jvmti_records().virtual_thread_bottom.store(bottom, std::memory_order_release);
    jvmti_records().virtual_thread_entry.store(entry, std::memory_order_release);
    jni->DeleteLocalRef(continuation);
}

}  // namespace VirtualThreads
}  // namespace stackreq
