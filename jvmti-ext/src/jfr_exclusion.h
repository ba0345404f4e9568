// JFR keeps its own threads out of recordings (jdk.jfr.internal.JVM.exclude/include: a stream's
// dispatch thread while it runs, the jcmd thread running a JFR command on JDK 25, the recorder's
// scheduler thread). The JDK-native RequestStackTrace refuses requests of an excluded thread
// with WRONG_PHASE; so does stackreq, which learns of each exclusion by standing in for those
// two natives when JFR registers them (JVMTI NativeMethodBind), calling the JDK's own and then
// marking the thread in the thread registry. Normal context only.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>

namespace stackreq {
namespace JfrExclusion {

// At Agent_OnLoad: asks for the NativeMethodBind capability; false when refused.
bool request_capability(jvmtiEnv* jvmti);
void JNICALL on_native_method_bind(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jmethodID method, void* address,
                                   void** new_address);
// On the starting thread, once it is in the registry: an exclusion made before it started.
void on_thread_start(JNIEnv* jni, jthread thread, int32_t tid);

}  // namespace JfrExclusion
}  // namespace stackreq
