// The JFR settings poll, run by the emitter thread: JFR applies Recording.enable/disable, a
// second recording's settings and `jcmd JFR.configure` without telling listeners, so
// io.stackreq.jfr.internal.Bootstrap.pollSettings() compares the event's settings with the request
// gate; the emitter calls it when it wakes (every 50 ms, sooner under many requests), at most
// every 10 ms. The poll has no thread of its own: on a 2-vCPU VM the wake-ups of a Java thread
// sleeping 20 ms cost 0.5-0.7% of a core, more than its work.
#pragma once

#include <jni.h>

namespace stackreq {

class SettingsPoll {
public:
    // Called from Java when JFR initializes: from then on the emitter polls. False (with a pending
    // Java exception cleared and one warning) when Bootstrap.pollSettings() is missing.
    static bool start(JNIEnv* jni);

    // On the emitter thread, with no emitter lock held (the poll calls back into the agent):
    // polls when started and at least 10 ms have passed since the last poll.
    static void poll_if_due(JNIEnv* jni);
};

}  // namespace stackreq
