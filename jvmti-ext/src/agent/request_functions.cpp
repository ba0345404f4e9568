// The JEP's functions besides the signal-time path (request/request.cpp): RequestStackTrace for
// another thread, InitializeRequestStackTrace, EnableRequestStackTrace, DisableRequestStackTrace.
// Normal context only.
#include <jni.h>
#include <jvmti.h>

#include "agent/agent_state.h"
#include "emitter/emitter.h"
#include "emitter/jvmti_records.h"
#include "request/disabled_environments.h"
#include "request/request_gate.h"
#include "request/thread_registry.h"
#include "stackreq.h"

namespace stackreq {

// Validates the jthread with JNI/JVMTI (normal context only, see stackreq.h).
jvmtiError request_other_thread(AgentState& state, JNIEnv* jni, jthread target, jlong user_data, Caller caller) {
    if (!jni->IsInstanceOf(target, state.thread_class)) {
        return reject(Counter::rejected_invalid_thread, JVMTI_ERROR_INVALID_THREAD);
    }
    if (state.thread_is_virtual != nullptr && jni->CallBooleanMethod(target, state.thread_is_virtual)) {
        return reject(Counter::rejected_unsupported, STACKREQ_ERROR_UNSUPPORTED_OPERATION);
    }
    jint thread_state = 0;
    jvmtiError error = state.jvmti->GetThreadState(target, &thread_state);
    if (error == JVMTI_ERROR_INVALID_THREAD) return reject(Counter::rejected_invalid_thread, error);
    if (error != JVMTI_ERROR_NONE || (thread_state & JVMTI_THREAD_STATE_ALIVE) == 0) {
        return reject(Counter::rejected_thread_not_alive, JVMTI_ERROR_THREAD_NOT_ALIVE);
    }
    int32_t target_tid = jvmti_records().threads.tid_of(jni, target);
    if (target_tid != 0 && ThreadRegistry::jfr_excluded(target_tid)) {
        return reject(Counter::rejected_wrong_phase, JVMTI_ERROR_WRONG_PHASE);
    }
    jvmtiError available = check_available(state, caller.env);
    if (available != JVMTI_ERROR_NONE) return available;
    jvmtiError result = JVMTI_ERROR_NONE;
    RequestSlot* slot = admit_and_claim(state, user_data, &result);
    if (slot == nullptr) return result;
    slot->thread_ref = jni->NewGlobalRef(target);
    slot->caller = caller;
    slot->tid = 0;
    slot->kind = RequestKind::kBiasedOther;
    slot->top_pc = 0;
    slot->physical_count = 0;
    slot->vmstructs.walked = false;
    slot->frame_count = 0;
    slot->native_count = 0;
    slot->truncated = false;
    state.ring.publish(slot);
    sem_post(&state.emitter_wakeup);
    return JVMTI_ERROR_NONE;
}

}  // namespace stackreq

using namespace stackreq;

// Once per environment or more: prepares what requests need (the ring's memory) and returns NONE.
// Requests work without it; Datadog's java-profiler calls it before its first request.
extern "C" JNIEXPORT jvmtiError JNICALL stackreq_InitializeRequestStackTraceImpl(jvmtiEnv* env) {
    if (env == nullptr) return JVMTI_ERROR_INVALID_ENVIRONMENT;
    commit_ring_memory(agent());
    return JVMTI_ERROR_NONE;
}

extern "C" JNIEXPORT jvmtiError JNICALL stackreq_EnableRequestStackTraceImpl(jvmtiEnv* env) {
    if (env == nullptr) return JVMTI_ERROR_INVALID_ENVIRONMENT;
    commit_ring_memory(agent());
    DisabledEnvironments::remove(env);
    return JVMTI_ERROR_NONE;
}

extern "C" JNIEXPORT jvmtiError JNICALL stackreq_DisableRequestStackTraceImpl(jvmtiEnv* env) {
    if (env == nullptr) return JVMTI_ERROR_INVALID_ENVIRONMENT;
    switch (DisabledEnvironments::add(env)) {
        case DisabledEnvironments::Added::kAlready:
            return JVMTI_ERROR_NOT_AVAILABLE;
        case DisabledEnvironments::Added::kFull:
            return JVMTI_ERROR_OUT_OF_MEMORY;
        case DisabledEnvironments::Added::kYes:
            break;
    }
    Emitter::flush_from_any_thread();
    return JVMTI_ERROR_NONE;
}
