#include "jdk_hooks/settings_poll.h"

#include <atomic>
#include <cstdint>

#include "agent/agent_state.h"
#include "agent/log.h"
#include "jdk_hooks/java_exception.h"

namespace stackreq {

namespace {

constexpr int64_t kUpcallPeriodNanos = 10 * 1000000;

struct PollState {
    jclass bootstrap = nullptr;
    jmethodID poll = nullptr;
    // The event's PlatformEventType and its `enabled` field; null without them (the fallback).
    jobject platform_type = nullptr;
    jfieldID enabled_field = nullptr;
    std::atomic<bool> started{false};
    std::atomic<bool> memory_recording_running{false};
    // Emitter thread only.
    bool last_seen_enabled = false;
    int64_t last_upcall = 0;
    bool failure_logged = false;
};

PollState& poll_state() {
    static PollState state;
    return state;
}

bool clear_exception(JNIEnv* jni) {
    if (!jni->ExceptionCheck()) return false;
    jni->ExceptionClear();
    return true;
}

// JNI ignores Java's access checks and module boundaries: the private field is read as it is.
bool find_enabled_flag(JNIEnv* jni, jobject event_type, PollState* p) {
    if (event_type == nullptr) return false;
    jclass event_type_class = jni->GetObjectClass(event_type);
    jfieldID platform_field =
        jni->GetFieldID(event_type_class, "platformEventType", "Ljdk/jfr/internal/PlatformEventType;");
    if (platform_field == nullptr || clear_exception(jni)) return false;
    jobject platform_type = jni->GetObjectField(event_type, platform_field);
    if (platform_type == nullptr) return false;
    jfieldID enabled_field = jni->GetFieldID(jni->GetObjectClass(platform_type), "enabled", "Z");
    if (enabled_field == nullptr || clear_exception(jni)) return false;
    p->platform_type = jni->NewGlobalRef(platform_type);
    p->enabled_field = enabled_field;
    return p->platform_type != nullptr;
}

}  // namespace

bool SettingsPoll::start(JNIEnv* jni, jobject event_type) {
    PollState& p = poll_state();
    if (p.started.load(std::memory_order_acquire)) return true;
    jclass bootstrap = jni->FindClass("io/stackreq/jfr/internal/Bootstrap");
    jmethodID poll = bootstrap == nullptr ? nullptr : jni->GetStaticMethodID(bootstrap, "pollSettings", "()V");
    if (poll == nullptr) {
        jni->ExceptionClear();
        Log::warn("Bootstrap.pollSettings() not found: JFR settings changes will not reach the request gate");
        return false;
    }
    p.bootstrap = static_cast<jclass>(jni->NewGlobalRef(bootstrap));
    p.poll = poll;
    if (!find_enabled_flag(jni, event_type, &p)) {
        clear_exception(jni);
        Log::warn("jdk.jfr.internal.PlatformEventType.enabled not found on this JDK: the emitter calls Java to check "
                  "the JFR settings at each wake-up");
    }
    p.started.store(true, std::memory_order_release);
    return true;
}

bool SettingsPoll::is_event_type(JNIEnv* jni, jobject platform_event_type) {
    PollState& p = poll_state();
    return p.started.load(std::memory_order_acquire) && p.platform_type != nullptr &&
           jni->IsSameObject(p.platform_type, platform_event_type) == JNI_TRUE;
}

void SettingsPoll::set_memory_recording_running(bool running) {
    poll_state().memory_recording_running.store(running, std::memory_order_release);
}

void SettingsPoll::poll(JNIEnv* jni) {
    PollState& p = poll_state();
    if (!p.started.load(std::memory_order_acquire)) return;
    if (p.platform_type != nullptr) {
        // Java's own rule (Bootstrap.pollSettings), without running Java: a stopping recording
        // keeps the flag set while the listener closes the gate, and a recording enabling the
        // event next leaves the flag unchanged, so a disagreement with the gate counts too.
        const bool enabled = jni->GetBooleanField(p.platform_type, p.enabled_field) == JNI_TRUE;
        const bool gate = agent().event_enabled.load(std::memory_order_acquire);
        const bool memory = p.memory_recording_running.load(std::memory_order_acquire);
        const bool changed = enabled != p.last_seen_enabled;
        p.last_seen_enabled = enabled;
        if (!changed && enabled == gate && !(enabled && memory)) return;
    } else {
        const int64_t now = monotonic_ticks();
        if (now - p.last_upcall < kUpcallPeriodNanos) return;
        p.last_upcall = now;
    }
    jni->CallStaticVoidMethod(p.bootstrap, p.poll);
    const std::string thrown = take_java_exception(jni);
    if (!thrown.empty() && !p.failure_logged) {
        p.failure_logged = true;
        Log::warn("the JFR settings poll failed (%s): settings changes may not reach the request gate", thrown.c_str());
    }
}

}  // namespace stackreq
