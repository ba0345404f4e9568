#include "jdk_hooks/jfr_bridge.h"

#include <string>

#include "agent/agent_state.h"
#include "agent/log.h"
#include "emitter/emitter.h"
#include "jdk_hooks/chunk_hook.h"
#include "jdk_hooks/enabled_flag_hook.h"
#include "jdk_hooks/java_exception.h"
#include "jdk_hooks/jfr_exclusion.h"
#include "jdk_hooks/settings_poll.h"

namespace stackreq {

namespace {

jstring error_or_null(JNIEnv* jni, bool ok, const std::string& error) {
    if (ok) return nullptr;
    Log::warn("%s", error.c_str());
    return jni->NewStringUTF(error.c_str());
}

void JNICALL recording_seen(JNIEnv*, jclass) { agent().recording_seen.store(true, std::memory_order_release); }

void JNICALL set_event_enabled(JNIEnv*, jclass, jboolean enabled) {
    if (enabled == JNI_TRUE) commit_ring_memory(agent());
    agent().event_enabled.store(enabled == JNI_TRUE, std::memory_order_release);
    Log::debug("jdk.StackTraceRequest %s", enabled ? "enabled" : "disabled");
}

void JNICALL set_throttle(JNIEnv*, jclass, jlong limit, jlong window_nanos) {
    agent().throttle.configure(limit, window_nanos);
    Log::debug("throttle: %lld per %lld ns", static_cast<long long>(limit), static_cast<long long>(window_nanos));
}

void JNICALL set_event_type_id(JNIEnv*, jclass, jlong id) { Emitter::set_event_type_id(static_cast<uint64_t>(id)); }

void JNICALL check_jfr_exclusions(JNIEnv* jni, jclass) { JfrExclusion::check_at_jfr_start(agent().jvmti, jni); }

void JNICALL start_settings_poll(JNIEnv* jni, jclass, jobject event_type) { SettingsPoll::start(jni, event_type); }

void JNICALL set_memory_recording_running(JNIEnv*, jclass, jboolean running) {
    SettingsPoll::set_memory_recording_running(running == JNI_TRUE);
}

void JNICALL recording_started(JNIEnv*, jclass, jlong id) { Emitter::recording_started(id); }

jstring JNICALL recording_stopped(JNIEnv* jni, jclass, jlong id, jstring path) {
    const char* chars = path == nullptr ? nullptr : jni->GetStringUTFChars(path, nullptr);
    std::string error;
    bool ok = Emitter::recording_stopped(jni, id, chars, &error);
    if (chars != nullptr) jni->ReleaseStringUTFChars(path, chars);
    return error_or_null(jni, ok, error);
}

jstring JNICALL install_chunk_hook(JNIEnv* jni, jclass, jbyteArray hook_class, jobject recorder) {
    std::string error;
    bool ok = hook_class != nullptr && recorder != nullptr && ChunkHook::install(jni, hook_class, recorder, &error);
    if (ok) return nullptr;
    if (error.empty()) error = "no hook class or recorder";
    return jni->NewStringUTF(error.c_str());
}

jstring JNICALL install_enabled_flag_hook(JNIEnv* jni, jclass, jbyteArray hook_class) {
    std::string error = "no hook class";
    if (hook_class != nullptr && EnabledFlagHook::install(jni, hook_class, &error)) return nullptr;
    return jni->NewStringUTF(error.c_str());
}

jstring JNICALL last_recording_stopped(JNIEnv* jni, jclass, jstring destination) {
    const char* chars = destination == nullptr ? nullptr : jni->GetStringUTFChars(destination, nullptr);
    std::string error;
    bool ok = Emitter::last_recording_stopped(jni, chars, &error);
    if (chars != nullptr) jni->ReleaseStringUTFChars(destination, chars);
    return error_or_null(jni, ok, error);
}

const JNINativeMethod kNatives[] = {
    {const_cast<char*>("recordingSeen"), const_cast<char*>("()V"), reinterpret_cast<void*>(recording_seen)},
    {const_cast<char*>("setEventEnabled"), const_cast<char*>("(Z)V"), reinterpret_cast<void*>(set_event_enabled)},
    {const_cast<char*>("setThrottle"), const_cast<char*>("(JJ)V"), reinterpret_cast<void*>(set_throttle)},
    {const_cast<char*>("setEventTypeId"), const_cast<char*>("(J)V"), reinterpret_cast<void*>(set_event_type_id)},
    {const_cast<char*>("checkJfrExclusions"), const_cast<char*>("()V"), reinterpret_cast<void*>(check_jfr_exclusions)},
    {const_cast<char*>("startSettingsPoll"), const_cast<char*>("(Ljdk/jfr/EventType;)V"),
     reinterpret_cast<void*>(start_settings_poll)},
    {const_cast<char*>("setMemoryRecordingRunning"), const_cast<char*>("(Z)V"),
     reinterpret_cast<void*>(set_memory_recording_running)},
    {const_cast<char*>("recordingStarted"), const_cast<char*>("(J)V"), reinterpret_cast<void*>(recording_started)},
    {const_cast<char*>("recordingStopped"), const_cast<char*>("(JLjava/lang/String;)Ljava/lang/String;"),
     reinterpret_cast<void*>(recording_stopped)},
    {const_cast<char*>("installChunkHook"), const_cast<char*>("([BLjdk/jfr/FlightRecorder;)Ljava/lang/String;"),
     reinterpret_cast<void*>(install_chunk_hook)},
    {const_cast<char*>("installEnabledFlagHook"), const_cast<char*>("([B)Ljava/lang/String;"),
     reinterpret_cast<void*>(install_enabled_flag_hook)},
    {const_cast<char*>("lastRecordingStopped"), const_cast<char*>("(Ljava/lang/String;)Ljava/lang/String;"),
     reinterpret_cast<void*>(last_recording_stopped)},
};

bool failed(JNIEnv* jni, const char* what) {
    const std::string thrown = take_java_exception(jni);
    Log::warn("JFR integration unavailable: %s%s%s%s", what, thrown.empty() ? "" : " (", thrown.c_str(),
              thrown.empty() ? "" : ")");
    return false;
}

}  // namespace

bool start_jfr_bridge(JNIEnv* jni) {
    jclass bridge = jni->FindClass("io/stackreq/jfr/internal/NativeBridge");
    if (bridge == nullptr) {
        return failed(jni, "class io.stackreq.jfr.internal.NativeBridge not found (events jar missing?)");
    }
    if (jni->RegisterNatives(bridge, kNatives, sizeof(kNatives) / sizeof(kNatives[0])) != 0) {
        return failed(jni, "RegisterNatives failed");
    }
    jclass bootstrap = jni->FindClass("io/stackreq/jfr/internal/Bootstrap");
    if (bootstrap == nullptr) return failed(jni, "class io.stackreq.jfr.internal.Bootstrap not found");
    jmethodID start = jni->GetStaticMethodID(bootstrap, "start", "()V");
    if (start == nullptr) return failed(jni, "Bootstrap.start() not found");
    jni->CallStaticVoidMethod(bootstrap, start);
    if (jni->ExceptionCheck()) return failed(jni, "Bootstrap.start() threw");
    return true;
}

}  // namespace stackreq
