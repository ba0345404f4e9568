// native=on: requests from threads that JVMTI does not show, hence that have no entry in the
// thread registry: the JVM's own threads (GC workers, the VM thread, the JIT compilers, whose
// JavaThreads HotSpot hides from JVMTI) and native threads, attached or not. Their stack is the
// native one from the signal's registers (native_unwind.h), and the unwinder needs bounds that
// make every read safe:
// - a thread HotSpot created or attached keeps its Thread* in a pthread key of HotSpot's (the
//   key is found at VMInit: the one whose value on the initializing thread is its own
//   JavaThread), and the Thread its stack base and size (gHotSpotVMStructs): the stack is read
//   directly, above the same guard margin as a Java thread's;
// - a thread HotSpot does not know: each word is read with process_vm_readv on the own process,
//   which fails instead of faulting, from the signal's stack pointer up.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>

#include "native_unwind/native_unwind.h"

namespace stackreq {

class InternalThreads {
public:
    // Normal context, at VMInit or the attach, on a Java thread (jni and current are its own).
    // Returns false and sets *error when this JVM does not publish what is needed: requests
    // from the JVM's threads then read their stacks through the kernel, as an unknown thread's.
    static bool init(JNIEnv* jni, jthread current, std::string* error);
    // Async-signal-safe: the bounds for unwinding the calling thread's stack from sp; false
    // (and *out read through the kernel from sp up) when HotSpot does not know the thread.
    static bool current_stack(uintptr_t sp, StackBounds* out);
    static void reset_for_test();
};

}  // namespace stackreq
