#include "jdk_hooks/chunk_hook.h"

#include <atomic>
#include <cstring>

#include "agent/agent_state.h"
#include "agent/log.h"
#include "emitter/emitter.h"
#include "jdk_hooks/class_rewriter.h"

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
// toString() (its file) on JDK 17 and 25; without them the side files start at the next chunk.
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

}  // namespace

bool ChunkHook::installed() { return hook().installed.load(std::memory_order_acquire); }

bool ChunkHook::install(JNIEnv* jni, jbyteArray hook_class_bytes, jobject recorder, std::string* error) {
    if (installed()) return true;
    if (!agent().options.continuous) return fail(jni, error, "turned off by the agent option continuous=off");
    if (!resolve_rotation(jni, recorder, error)) return false;
    if (!ClassRewriter::rewrite(jni, kRewrite, hook_class_bytes, error)) return false;
    hook().installed.store(true, std::memory_order_release);
    adopt_current_chunk(jni);
    return true;
}

void ChunkHook::request_new_chunk(JNIEnv* jni) {
    HookState& h = hook();
    if (!installed()) return;
    bool on_disk = jni->CallStaticBooleanMethod(h.bootstrap, h.disk_recording_running) == JNI_TRUE;
    if (!jni->ExceptionCheck() && on_disk) jni->CallVoidMethod(h.platform_recorder, h.rotate_disk);
    if (jni->ExceptionCheck()) {
        jni->ExceptionDescribe();
        jni->ExceptionClear();
        Log::warn("JFR refused to start a new chunk; pending events wait for the next one");
    }
}

}  // namespace stackreq
