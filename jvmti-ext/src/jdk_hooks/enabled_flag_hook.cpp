#include "jdk_hooks/enabled_flag_hook.h"

#include <atomic>

#include "agent/log.h"
#include "jdk_hooks/class_rewriter.h"
#include "jdk_hooks/java_exception.h"
#include "jdk_hooks/settings_poll.h"

namespace stackreq {

namespace {

jclass g_bootstrap = nullptr;  // global reference
jmethodID g_refresh_enabled = nullptr;

// Runs inside JFR's settings update, for every event type whose flag is set: cheap for the others.
void JNICALL enabled_set(JNIEnv* jni, jclass, jobject platform_event_type) {
    if (g_refresh_enabled == nullptr || !SettingsPoll::is_event_type(jni, platform_event_type)) return;
    jni->CallStaticVoidMethod(g_bootstrap, g_refresh_enabled);
    const std::string thrown = take_java_exception(jni);
    static std::atomic<bool> logged{false};
    if (!thrown.empty() && !logged.exchange(true)) {
        Log::warn("the enabled-flag hook failed (%s): settings changes reach requests within 100 ms", thrown.c_str());
    }
}

const JNINativeMethod kHookNatives[] = {
    {const_cast<char*>("enabledSet"), const_cast<char*>("(Ljava/lang/Object;)V"),
     reinterpret_cast<void*>(enabled_set)},
};

const ClassRewrite kRewrite{"jdk/jfr/internal/PlatformEventType", "io/stackreq/jfr/internal/EnabledFlagHookTransformer",
                            "io/stackreq/jfr/boot/EnabledFlagHook", kHookNatives, 1};

}  // namespace

bool EnabledFlagHook::install(JNIEnv* jni, jbyteArray hook_class_bytes, std::string* error) {
    jclass bootstrap = jni->FindClass("io/stackreq/jfr/internal/Bootstrap");
    jmethodID refresh = bootstrap == nullptr ? nullptr : jni->GetStaticMethodID(bootstrap, "refreshEnabled", "()V");
    if (refresh == nullptr) {
        jni->ExceptionClear();
        *error = "Bootstrap.refreshEnabled() not found";
        return false;
    }
    g_bootstrap = static_cast<jclass>(jni->NewGlobalRef(bootstrap));
    g_refresh_enabled = refresh;
    return ClassRewriter::rewrite(jni, kRewrite, hook_class_bytes, error);
}

}  // namespace stackreq
