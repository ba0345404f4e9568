// The JNI side of the jfr-events Java classes: natives for io.stackreq.jfr.internal.NativeBridge
// and the call that starts io.stackreq.jfr.internal.Bootstrap at VMInit.
#pragma once

#include <jni.h>

namespace stackreq {

// Registers the natives and runs Bootstrap.start(). Returns false (and logs why) when the
// events jar's classes cannot be found or started; file= mode still works without them.
bool start_jfr_bridge(JNIEnv* jni);

}  // namespace stackreq
