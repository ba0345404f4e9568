// Attaching to a live JVM: the Java threads already running get no ThreadStart, so they are
// registered here, from the attaching thread, for requests (ThreadRegistry) and for the events'
// thread names (ThreadIdentities).
#pragma once

#include <jni.h>
#include <jvmti.h>

namespace stackreq {

// Registers every live thread of GetAllThreads except current (which registers itself). Call
// after ThreadStart is enabled, so that no thread falls between the two. Logs how many threads
// were adopted and, once, why the others could not be.
void adopt_running_threads(jvmtiEnv* jvmti, JNIEnv* jni, jthread current);

}  // namespace stackreq
