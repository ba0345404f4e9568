// The gates every request passes, whichever path it takes (request.cpp for the calling thread,
// agent/request_functions.cpp for another one), and the claim of its ring slot. Async-signal-safe.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include "agent/agent_state.h"
#include "request/counters.h"
#include "request/request_ring.h"
#include "request/requesters.h"

namespace stackreq {

// Counts the refusal and returns error.
jvmtiError reject(Counter counter, jvmtiError error);

// WRONG_PHASE outside VMInit..VMDeath, and before any recording started (without file=).
jvmtiError check_phase(AgentState& state);

// As the JDK does, the event's enabled setting is the gate; an environment that called
// DisableRequestStackTrace is closed on its own until it enables again (NOT_AVAILABLE).
jvmtiError check_available(AgentState& state, jvmtiEnv* env);

// Throttles, counts and claims a ring slot stamped with the request's time and user data; null
// when the request ends here, *result then saying what the caller returns (NONE when throttled,
// OUT_OF_MEMORY when the ring is full).
RequestSlot* admit_and_claim(AgentState& state, jlong user_data, jvmtiError* result);

// Normal context only, not a gate: a request for a thread other than the caller, taken by the
// emitter at that thread's next safepoint. Defined in agent/request_functions.cpp (JNI, JVMTI).
jvmtiError request_other_thread(AgentState& state, JNIEnv* jni, jthread target, jlong user_data, Caller caller);

}  // namespace stackreq
