#include "jdk_hooks/chunk_hook.h"

#include <time.h>

#include <atomic>
#include <cstring>

#include "agent/agent_state.h"
#include "agent/log.h"
#include "emitter/emitter.h"
#include "jdk_hooks/class_rewriter.h"
#include "jdk_hooks/java_exception.h"

namespace stackreq {

namespace {

struct HookState {
    std::atomic<bool> installed{false};
    jobject platform_recorder = nullptr;  // global reference
    jmethodID rotate_disk = nullptr;
    jclass bootstrap = nullptr;  // global reference
    jmethodID disk_recording_running = nullptr;
};

HookState& hook() {
    static HookState state;
    return state;
}

void JNICALL finishing(JNIEnv* jni, jclass, jstring path) {
    if (path == nullptr) return;
    const char* chars = jni->GetStringUTFChars(path, nullptr);
    if (chars == nullptr) return;
    Emitter::chunk_finished(jni, chars);
    jni->ReleaseStringUTFChars(path, chars);
}

void JNICALL opened(JNIEnv* jni, jclass, jstring path) {
    if (path == nullptr) return;
    const char* chars = jni->GetStringUTFChars(path, nullptr);
    if (chars == nullptr) return;
    Emitter::chunk_opened(chars, false);
    jni->ReleaseStringUTFChars(path, chars);
}

const JNINativeMethod kHookNatives[] = {
    {const_cast<char*>("finishing"), const_cast<char*>("(Ljava/lang/String;)V"), reinterpret_cast<void*>(finishing)},
    {const_cast<char*>("opened"), const_cast<char*>("(Ljava/lang/String;)V"), reinterpret_cast<void*>(opened)},
};

const ClassRewrite kRewrite{"jdk/jfr/internal/RepositoryChunk", "io/stackreq/jfr/internal/ChunkHookTransformer",
                            "io/stackreq/jfr/boot/ChunkFinishHook", kHookNatives, 2};

bool fail(JNIEnv* jni, std::string* error, const std::string& what) {
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    *error = what;
    return false;
}

bool resolve_rotation(JNIEnv* jni, jobject recorder, std::string* error) {
    HookState& h = hook();
    jclass recorder_class = jni->FindClass("jdk/jfr/FlightRecorder");
    jfieldID internal = recorder_class == nullptr
                            ? nullptr
                            : jni->GetFieldID(recorder_class, "internal", "Ljdk/jfr/internal/PlatformRecorder;");
    if (internal == nullptr) return fail(jni, error, "jdk.jfr.FlightRecorder has no field 'internal'");
    jobject platform = jni->GetObjectField(recorder, internal);
    jclass platform_class = jni->FindClass("jdk/jfr/internal/PlatformRecorder");
    jmethodID rotate = platform_class == nullptr ? nullptr : jni->GetMethodID(platform_class, "rotateDisk", "()V");
    if (platform == nullptr || rotate == nullptr) {
        return fail(jni, error, "jdk.jfr.internal.PlatformRecorder.rotateDisk() not found");
    }
    jclass bootstrap = jni->FindClass("io/stackreq/jfr/internal/Bootstrap");
    jmethodID running = bootstrap == nullptr ? nullptr
                                             : jni->GetStaticMethodID(bootstrap, "diskRecordingRunning", "()Z");
    if (running == nullptr) return fail(jni, error, "Bootstrap.diskRecordingRunning() not found");
    h.platform_recorder = jni->NewGlobalRef(platform);
    h.rotate_disk = rotate;
    h.bootstrap = static_cast<jclass>(jni->NewGlobalRef(bootstrap));
    h.disk_recording_running = running;
    return true;
}

// A disk recording may run already (an agent attached later): its chunk was opened before the
// rewrite, so the emitter is told it here. PlatformRecorder.currentChunk and RepositoryChunk's
// toString() (the file the JVM writes: on JDK 11 the .part file) on JDK 11 to 27; without them
// the side files start at the next chunk.
void adopt_current_chunk(JNIEnv* jni) {
    jclass platform_class = jni->FindClass("jdk/jfr/internal/PlatformRecorder");
    jfieldID field = platform_class == nullptr
                         ? nullptr
                         : jni->GetFieldID(platform_class, "currentChunk", "Ljdk/jfr/internal/RepositoryChunk;");
    jobject chunk = field == nullptr ? nullptr : jni->GetObjectField(hook().platform_recorder, field);
    jclass object_class = jni->FindClass("java/lang/Object");
    jmethodID to_string =
        object_class == nullptr ? nullptr : jni->GetMethodID(object_class, "toString", "()Ljava/lang/String;");
    jstring path = chunk == nullptr || to_string == nullptr
                       ? nullptr
                       : static_cast<jstring>(jni->CallObjectMethod(chunk, to_string));
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    if (path == nullptr) return;
    const char* chars = jni->GetStringUTFChars(path, nullptr);
    if (chars == nullptr) return;
    Emitter::chunk_opened(chars, true);
    jni->ReleaseStringUTFChars(path, chars);
}

// JFR's tick counter against the wall clock (JVM.counterTime, and JVM.getTicksFrequency: static on
// JDK 25, of JVM.getJVM() on 11 and 17), for the side files of a chunk whose file has no header
// yet: JDK 11 writes a chunk's file only when it finishes it. False when JFR has neither.
bool measure_tick_scale(JNIEnv* jni) {
    jclass jvm = jni->FindClass("jdk/jfr/internal/JVM");
    jmethodID counter = jvm == nullptr ? nullptr : jni->GetStaticMethodID(jvm, "counterTime", "()J");
    if (counter == nullptr) {
        take_java_exception(jni);
        return false;
    }
    jlong frequency = 0;
    jmethodID static_frequency = jni->GetStaticMethodID(jvm, "getTicksFrequency", "()J");
    if (static_frequency != nullptr) {
        frequency = jni->CallStaticLongMethod(jvm, static_frequency);
    } else {
        take_java_exception(jni);
        jmethodID get_jvm = jni->GetStaticMethodID(jvm, "getJVM", "()Ljdk/jfr/internal/JVM;");
        jobject instance = get_jvm == nullptr ? nullptr : jni->CallStaticObjectMethod(jvm, get_jvm);
        jmethodID frequency_of = instance == nullptr ? nullptr : jni->GetMethodID(jvm, "getTicksFrequency", "()J");
        if (frequency_of != nullptr) frequency = jni->CallLongMethod(instance, frequency_of);
    }
    const jlong before = jni->CallStaticLongMethod(jvm, counter);
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    const jlong after = jni->CallStaticLongMethod(jvm, counter);
    if (!take_java_exception(jni).empty() || frequency <= 0) return false;
    Emitter::set_jfr_tick_scale(before + (after - before) / 2,
                                static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec, frequency);
    return true;
}

}  // namespace

bool ChunkHook::installed() { return hook().installed.load(std::memory_order_acquire); }

bool ChunkHook::install(JNIEnv* jni, jbyteArray hook_class_bytes, jobject recorder, std::string* error) {
    if (installed()) return true;
    if (!agent().options.continuous) return fail(jni, error, "turned off by the agent option continuous=off");
    if (!resolve_rotation(jni, recorder, error)) return false;
    if (!ClassRewriter::rewrite(jni, kRewrite, hook_class_bytes, error)) return false;
    if (!measure_tick_scale(jni)) {
        Log::warn("JFR's tick counter not found (JVM.counterTime, getTicksFrequency): a JVM that dies before JFR "
                  "writes the file of its chunk loses the stackreq events of that chunk");
    }
    hook().installed.store(true, std::memory_order_release);
    adopt_current_chunk(jni);
    return true;
}

void ChunkHook::request_new_chunk(JNIEnv* jni) {
    HookState& h = hook();
    if (!installed()) return;
    bool on_disk = jni->CallStaticBooleanMethod(h.bootstrap, h.disk_recording_running) == JNI_TRUE;
    if (!jni->ExceptionCheck() && on_disk) jni->CallVoidMethod(h.platform_recorder, h.rotate_disk);
    const std::string thrown = take_java_exception(jni);
    if (!thrown.empty()) {
        Log::warn("JFR refused to start a new chunk (%s); pending events wait for the next one", thrown.c_str());
    }
}

}  // namespace stackreq
