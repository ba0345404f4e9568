// What the JVMTI callbacks (agent/) record for the emitter: every Java thread's identity, the code
// the JIT compiled, for walker=vmstructs the jmethodID of each Method*, and the methods a virtual
// thread's frames end with. Filled and
// read in normal context only; the request path never sees them.
#pragma once

#include <jni.h>

#include <atomic>

#include "emitter/compiled_methods.h"
#include "hotspot/method_table.h"
#include "emitter/thread_identities.h"

namespace stackreq {

struct JvmtiRecords {
    ThreadIdentities threads;
    CompiledMethods compiled_methods;
    MethodTable method_table;  // walker=vmstructs
    // JDK 21+, from VMInit (agent/virtual_threads.h); null before or without virtual threads.
    // Continuation.enterSpecial, where a virtual thread's frames start, and Continuation.enter,
    // the frame right above it in a whole virtual thread's stack: when another frame is there,
    // the frames between were still frozen in the continuation (mounting thaws only the top
    // frames), and AsyncGetCallTrace went from the thawed frames straight to the entry.
    std::atomic<jmethodID> virtual_thread_entry{nullptr};
    std::atomic<jmethodID> virtual_thread_bottom{nullptr};
};

JvmtiRecords& jvmti_records();

}  // namespace stackreq
