// A Java exception pending in a JNI call of the hooks, as one line: the hooks run on the
// application's threads (JFR's settings update, its chunk rotation) and on the emitter, where a
// stack trace printed by ExceptionDescribe would land in the application's output and an exception
// left pending would be thrown into its code. Normal context.
#pragma once

#include <jni.h>

#include <string>

namespace stackreq {

// Clears the pending exception and returns its toString() on one line ("java.lang.Error: why"), or
// an empty string when none was pending.
std::string take_java_exception(JNIEnv* jni);

}  // namespace stackreq
