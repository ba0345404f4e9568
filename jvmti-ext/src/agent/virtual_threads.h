// Requests made in a mounted virtual thread (JDK 21+) belong to the virtual thread, as on a JDK
// with the API: stackreq follows mounts with JVMTI's VirtualThreadMount/VirtualThreadUnmount
// extension events and keeps, in the carrier's thread registry slot, the key of the virtual
// thread it runs; a request copies that key into its event. The frames of such a request end
// where the virtual thread's own frames end (Continuation.enterSpecial), as JFR's own stacks
// of virtual threads do, without the carrier's. Normal context only.
#pragma once

#include <jni.h>
#include <jvmti.h>

namespace stackreq {
namespace VirtualThreads {

// At Agent_OnLoad, after the other capabilities: on a JDK with virtual threads, asks for
// can_support_virtual_threads and listens to mounts. False on a JDK without them, or with a
// one-line warning when the JDK refuses.
bool start(jvmtiEnv* jvmti);
// At VMInit: the methods a virtual thread's frames end with, for the emitter
// (JvmtiRecords::virtual_thread_entry and virtual_thread_bottom).
void resolve_entry_method(JNIEnv* jni);

}  // namespace VirtualThreads
}  // namespace stackreq
