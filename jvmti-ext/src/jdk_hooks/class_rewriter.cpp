#include "jdk_hooks/class_rewriter.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include "agent/agent_state.h"
#include "jdk_hooks/java_exception.h"

namespace stackreq {

namespace {

// The rewrite in progress: rewrite() retransforms one class at a time, and the ClassFileLoadHook
// acts only while it does.
struct InProgress {
    std::mutex mutex;
    std::atomic<const ClassRewrite*> rewrite{nullptr};
    jclass transformer = nullptr;
    jmethodID transform = nullptr;
    bool rewritten = false;
    std::string thrown;  // what the transformer threw, if it did
};

InProgress& in_progress() {
    static InProgress state;
    return state;
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


std::string transformer_error(JNIEnv* jni, jclass transformer, jvmtiError retransformed) {
    std::string why = "RetransformClasses error " + std::to_string(retransformed);
    jmethodID last_error = jni->GetStaticMethodID(transformer, "lastError", "()Ljava/lang/String;");
    jstring message =
        last_error == nullptr ? nullptr : static_cast<jstring>(jni->CallStaticObjectMethod(transformer, last_error));
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    if (message != nullptr) {
        const char* chars = jni->GetStringUTFChars(message, nullptr);
        if (chars != nullptr) {
            why = chars;
            jni->ReleaseStringUTFChars(message, chars);
        }
    }
    return why;
}

}  // namespace

jclass define_boot_class(JNIEnv* jni, const char* name, jbyteArray bytes) {
    jsize length = jni->GetArrayLength(bytes);
    jbyte* data = jni->GetByteArrayElements(bytes, nullptr);
    if (data == nullptr) return nullptr;
    jclass defined = jni->DefineClass(name, nullptr, data, length);
    jni->ReleaseByteArrayElements(bytes, data, JNI_ABORT);
    if (defined != nullptr) return defined;
    // Defined by an earlier install (JFR initializes once, but an agent can be attached again).
    jni->ExceptionClear();
    return jni->FindClass(name);
}

bool ClassRewriter::rewrite(JNIEnv* jni, const ClassRewrite& rewrite, jbyteArray hook_class_bytes,
                            std::string* error) {
    jvmtiEnv* jvmti = agent().jvmti;
    jvmtiCapabilities capabilities{};
    if (jvmti->GetCapabilities(&capabilities) != JVMTI_ERROR_NONE || !capabilities.can_retransform_classes) {
        return fail(jni, error, "the JVM refused the can_retransform_classes capability");
    }
    jclass transformer = jni->FindClass(rewrite.transformer);
    jmethodID transform = transformer == nullptr ? nullptr
                                                 : jni->GetStaticMethodID(transformer, "transform", "([B)[B");
    if (transform == nullptr) return fail(jni, error, std::string(rewrite.transformer) + " not found");

    jclass hook_class = define_boot_class(jni, rewrite.hook_class, hook_class_bytes);
    if (hook_class == nullptr) return fail(jni, error, std::string("cannot define ") + rewrite.hook_class);
    if (jni->RegisterNatives(hook_class, rewrite.hook_natives, rewrite.hook_native_count) != 0) {
        return fail(jni, error, std::string("RegisterNatives on ") + rewrite.hook_class + " failed");
    }
    jclass target = jni->FindClass(rewrite.target);
    if (target == nullptr) return fail(jni, error, std::string("class ") + rewrite.target + " not found");
    jobject target_module = module_of(jni, target);
    jobject hook_module = module_of(jni, hook_class);
    // The JDK's modules are named; they read the boot loader's unnamed module only when told to.
    if (target_module == nullptr || hook_module == nullptr ||
        jvmti->AddModuleReads(target_module, hook_module) != JVMTI_ERROR_NONE) {
        return fail(jni, error, std::string("cannot let the module of ") + rewrite.target + " read the hook's");
    }

    InProgress& p = in_progress();
    std::lock_guard<std::mutex> guard(p.mutex);
    p.transformer = transformer;
    p.transform = transform;
    p.rewritten = false;
    p.thrown.clear();
    p.rewrite.store(&rewrite, std::memory_order_release);
    jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, nullptr);
    jvmtiError retransformed = jvmti->RetransformClasses(1, &target);
    jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, nullptr);
    p.rewrite.store(nullptr, std::memory_order_release);
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    if (!p.thrown.empty()) return fail(jni, error, std::string(rewrite.transformer) + " threw " + p.thrown);
    if (retransformed != JVMTI_ERROR_NONE && p.rewritten) {
        return fail(jni, error, std::string("the JVM refused the rewritten ") + rewrite.target + " (JVMTI error " +
                                    std::to_string(retransformed) + ")");
    }
    if (retransformed != JVMTI_ERROR_NONE || !p.rewritten) {
        return fail(jni, error, transformer_error(jni, transformer, retransformed));
    }
    return true;
}

void ClassRewriter::on_class_file_load(jvmtiEnv* jvmti, JNIEnv* jni, const char* name, jint length,
                                       const unsigned char* data, jint* new_length, unsigned char** new_data) {
    InProgress& p = in_progress();
    const ClassRewrite* rewrite = p.rewrite.load(std::memory_order_acquire);
    if (rewrite == nullptr || name == nullptr || std::strcmp(name, rewrite->target) != 0) return;
    jbyteArray original = jni->NewByteArray(length);
    if (original == nullptr) return;
    jni->SetByteArrayRegion(original, 0, length, reinterpret_cast<const jbyte*>(data));
    jbyteArray rewritten =
        static_cast<jbyteArray>(jni->CallStaticObjectMethod(p.transformer, p.transform, original));
    const std::string thrown = take_java_exception(jni);
    if (!thrown.empty()) {
        p.thrown = thrown;
        return;
    }
    if (rewritten == nullptr) return;
    jsize size = jni->GetArrayLength(rewritten);
    unsigned char* bytes = nullptr;
    if (jvmti->Allocate(size, &bytes) != JVMTI_ERROR_NONE) return;
    jni->GetByteArrayRegion(rewritten, 0, size, reinterpret_cast<jbyte*>(bytes));
    *new_length = size;
    *new_data = bytes;
    p.rewritten = true;
}

}  // namespace stackreq
