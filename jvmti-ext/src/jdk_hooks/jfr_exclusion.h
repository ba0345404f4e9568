// JFR keeps its own threads out of recordings (jdk.jfr.internal.JVM.exclude/include: a stream's
// dispatch thread while it runs, the jcmd thread running a JFR command on JDK 25, the recorder's
// scheduler thread). The JDK-native RequestStackTrace refuses requests of an excluded thread
// with WRONG_PHASE; so does stackreq, which learns of each exclusion by standing in for those
// two natives when JFR registers them (JVMTI NativeMethodBind), calling the JDK's own and then
// marking the thread in the thread registry. Normal context only.
// Loaded into a running JVM (an attach), stackreq comes after JFR bound those natives: on_attach
// has JFR bind them again and asks JFR which running threads it excludes already.
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
// At an attach, once the running threads are adopted. When JFR is initialized (its class
// jdk.jfr.internal.JVM initialized; otherwise its static initializer binds the natives later, and
// on_native_method_bind sees it as at startup): reads the JDK's exclude/include functions where
// HotSpot keeps a native method's function and binds the stand-ins with RegisterNatives (the JVM
// logs a warning for each), then marks every running thread JVM.isExcluded(Thread) says JFR
// excludes.
void on_attach(jvmtiEnv* jvmti, JNIEnv* jni);
// Once JFR is initialized (its natives bound): says in one line whether its exclusions are
// followed; when JFR bound them before JVMTI could name a method (started in the primordial phase,
// as -XX:FlightRecorderOptions does), follows them as after an attach. JDK 11's JFR has no
// JVM.exclude (no Java thread is excluded there): nothing to follow.
void check_at_jfr_start(jvmtiEnv* jvmti, JNIEnv* jni);

}  // namespace JfrExclusion
}  // namespace stackreq
