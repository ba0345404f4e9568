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
// At VMInit: the method that starts a virtual thread's frames, for the emitter.
void resolve_entry_method(JNIEnv* jni);
// The jmethodID of Continuation.enterSpecial, null before VMInit or without virtual threads.
jmethodID entry_method();
// Continuation.enter, the frame right above enterSpecial in a whole virtual thread's stack. When
// another frame is there, the frames between were still frozen in the continuation (mounting
// thaws only the top frames; the others come back as the thread returns into them), and
// AsyncGetCallTrace went from the thawed frames straight to the entry.
jmethodID bottom_method();

}  // namespace VirtualThreads
}  // namespace stackreq
