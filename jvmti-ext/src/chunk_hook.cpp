#include "chunk_hook.h"

#include <atomic>
#include <cstring>

#include "agent_state.h"
#include "emitter.h"
#include "log.h"

namespace stackreq {

namespace {

constexpr const char* kRepositoryChunk = "jdk/jfr/internal/RepositoryChunk";
constexpr const char* kHookClass = "io/stackreq/jfr/boot/ChunkFinishHook";
constexpr const char* kTransformer = "io/stackreq/jfr/internal/ChunkHookTransformer";

struct HookState {
    std::atomic<bool> installed{false};
    // Set while install() retransforms RepositoryChunk: the ClassFileLoadHook acts only then.
    std::atomic<bool> rewriting{false};
    bool rewritten = false;
    jclass transformer = nullptr;  // global reference
    jmethodID transform = nullptr;
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

bool fail(JNIEnv* jni, std::string* error, const std::string& what) {
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    *error = what;
    return false;
}

jobject module_of(JNIEnv* jni, jclass klass) {
    jclass class_class = jni->FindClass("java/lang/Class");
    jmethodID get_module = class_class == nullptr ? nullptr
                                                  : jni->GetMethodID(class_class, "getModule", "()Ljava/lang/Module;");
    return get_module == nullptr ? nullptr : jni->CallObjectMethod(klass, get_module);
}

jclass define_hook_class(JNIEnv* jni, jbyteArray bytes) {
    jsize length = jni->GetArrayLength(bytes);
    jbyte* data = jni->GetByteArrayElements(bytes, nullptr);
    if (data == nullptr) return nullptr;
    jclass defined = jni->DefineClass(kHookClass, nullptr, data, length);
    jni->ReleaseByteArrayElements(bytes, data, JNI_ABORT);
    if (defined != nullptr) return defined;
    // Defined by an earlier install (a second JFR initialization cannot happen, but an attach can).
    jni->ExceptionClear();
    return jni->FindClass(kHookClass);
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

}  // namespace

bool ChunkHook::installed() { return hook().installed.load(std::memory_order_acquire); }

bool ChunkHook::install(JNIEnv* jni, jbyteArray hook_class_bytes, jobject recorder, std::string* error) {
    HookState& h = hook();
    if (installed()) return true;
    if (!agent().options.continuous) return fail(jni, error, "turned off by the agent option continuous=off");
    jvmtiEnv* jvmti = agent().jvmti;
    jvmtiCapabilities capabilities{};
    if (jvmti->GetCapabilities(&capabilities) != JVMTI_ERROR_NONE || !capabilities.can_retransform_classes) {
        return fail(jni, error, "the JVM refused the can_retransform_classes capability");
    }
    jclass transformer = jni->FindClass(kTransformer);
    jmethodID transform = transformer == nullptr ? nullptr
                                                 : jni->GetStaticMethodID(transformer, "transform", "([B)[B");
    if (transform == nullptr) return fail(jni, error, "io.stackreq.jfr.internal.ChunkHookTransformer not found");
    h.transformer = static_cast<jclass>(jni->NewGlobalRef(transformer));
    h.transform = transform;

    jclass hook_class = define_hook_class(jni, hook_class_bytes);
    if (hook_class == nullptr) return fail(jni, error, "cannot define io.stackreq.jfr.boot.ChunkFinishHook");
    JNINativeMethod native{const_cast<char*>("finishing"), const_cast<char*>("(Ljava/lang/String;)V"),
                           reinterpret_cast<void*>(finishing)};
    if (jni->RegisterNatives(hook_class, &native, 1) != 0) {
        return fail(jni, error, "RegisterNatives on the hook failed");
    }

    jclass repository_chunk = jni->FindClass(kRepositoryChunk);
    if (repository_chunk == nullptr) return fail(jni, error, "class jdk.jfr.internal.RepositoryChunk not found");
    jobject jfr_module = module_of(jni, repository_chunk);
    jobject hook_module = module_of(jni, hook_class);
    // jdk.jfr is a named module; it reads the boot loader's unnamed module only when told to.
    if (jfr_module == nullptr || hook_module == nullptr ||
        jvmti->AddModuleReads(jfr_module, hook_module) != JVMTI_ERROR_NONE) {
        return fail(jni, error, "cannot let module jdk.jfr read the hook's module");
    }
    if (!resolve_rotation(jni, recorder, error)) return false;

    h.rewritten = false;
    h.rewriting.store(true, std::memory_order_release);
    jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, nullptr);
    jvmtiError retransformed = jvmti->RetransformClasses(1, &repository_chunk);
    jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, nullptr);
    h.rewriting.store(false, std::memory_order_release);
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    if (retransformed != JVMTI_ERROR_NONE || !h.rewritten) {
        std::string why = "RetransformClasses error " + std::to_string(retransformed);
        jmethodID last_error = jni->GetStaticMethodID(h.transformer, "lastError", "()Ljava/lang/String;");
        jstring message = last_error == nullptr
                              ? nullptr
                              : static_cast<jstring>(jni->CallStaticObjectMethod(h.transformer, last_error));
        if (message != nullptr) {
            const char* chars = jni->GetStringUTFChars(message, nullptr);
            if (chars != nullptr) {
                why = chars;
                jni->ReleaseStringUTFChars(message, chars);
            }
        }
        return fail(jni, error, why);
    }
    h.installed.store(true, std::memory_order_release);
    return true;
}

void ChunkHook::on_class_file_load(jvmtiEnv* jvmti, JNIEnv* jni, const char* name, jint length,
                                   const unsigned char* data, jint* new_length, unsigned char** new_data) {
    HookState& h = hook();
    if (!h.rewriting.load(std::memory_order_acquire) || name == nullptr || std::strcmp(name, kRepositoryChunk) != 0) {
        return;
    }
    jbyteArray original = jni->NewByteArray(length);
    if (original == nullptr) return;
    jni->SetByteArrayRegion(original, 0, length, reinterpret_cast<const jbyte*>(data));
    jbyteArray rewritten = static_cast<jbyteArray>(jni->CallStaticObjectMethod(h.transformer, h.transform, original));
    if (jni->ExceptionCheck()) {
        jni->ExceptionDescribe();
        jni->ExceptionClear();
        return;
    }
    if (rewritten == nullptr) return;
    jsize size = jni->GetArrayLength(rewritten);
    unsigned char* bytes = nullptr;
    if (jvmti->Allocate(size, &bytes) != JVMTI_ERROR_NONE) return;
    jni->GetByteArrayRegion(rewritten, 0, size, reinterpret_cast<jbyte*>(bytes));
    *new_length = size;
    *new_data = bytes;
    h.rewritten = true;
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
