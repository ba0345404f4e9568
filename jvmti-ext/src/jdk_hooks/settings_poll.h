// The JFR settings poll, run by the emitter thread: JFR applies Recording.enable/disable, a
// second recording's settings and `jcmd JFR.configure` without telling listeners, and a custom
// SettingControl (the throttle's) is not called when its value stays the same, so nothing pushes
// such a change of the event's `enabled` state to the agent. The emitter checks it at each
// wake-up (every 100 ms, sooner under many requests) by reading the flag JFR itself keeps,
// jdk.jfr.internal.PlatformEventType.enabled, through JNI: no Java code runs unless the flag
// disagrees with the request gate or changed, or an in-memory recording runs (its destination
// must be noted); then io.stackreq.jfr.internal.Bootstrap.pollSettings() decides. Where that field
// is missing, one line says so and the emitter calls pollSettings() at each wake-up, at most every
// 10 ms (an upcall into interpreted Java code cost about as much as the wake-up itself).
#pragma once

#include <jni.h>

namespace stackreq {

class SettingsPoll {
public:
    // Called from Java when JFR initializes, with the event's jdk.jfr.EventType: from then on the
    // emitter polls. False (with a pending Java exception cleared and one warning) when
    // Bootstrap.pollSettings() is missing.
    static bool start(JNIEnv* jni, jobject event_type);

    // From Java: whether a running recording is in memory (with the chunk hook), so that the poll
    // calls Java to note its destination.
    static void set_memory_recording_running(bool running);

    // On the emitter thread, with no emitter lock held (the poll may call back into the agent).
    static void poll(JNIEnv* jni);

    // Whether platform_event_type is jdk.StackTraceRequest's jdk.jfr.internal.PlatformEventType
    // (false before start(), or where that field was not found).
    static bool is_event_type(JNIEnv* jni, jobject platform_event_type);
};

}  // namespace stackreq
