// Settings changes reach the request gate at once: JFR sets an event type's enabled flag
// (jdk.jfr.internal.PlatformEventType.setEnabled) on the thread that changed the recordings'
// settings, before that call returns. install() rewrites setEnabled (class_rewriter.h) to call
// io.stackreq.jfr.boot.EnabledFlagHook.enabledSet(this) once the flag is set; for
// jdk.StackTraceRequest's type the native recomputes the gate (Bootstrap.refreshEnabled) right
// there. Without the hook the settings poll (settings_poll.h) still brings changes within 100 ms.
#pragma once

#include <jni.h>

#include <string>

namespace stackreq {

class EnabledFlagHook {
public:
    // Called from Java after SettingsPoll::start. Returns false and sets *error when any step fails.
    static bool install(JNIEnv* jni, jbyteArray hook_class_bytes, std::string* error);
};

}  // namespace stackreq
