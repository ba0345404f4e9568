#include "request/request_gate.h"

#include "request/disabled_environments.h"

namespace stackreq {

jvmtiError reject(Counter counter, jvmtiError error) {
    Counters::add(counter);
    return error;
}

// A failed file= recording (unwritable path, full disk) can take nothing more: requests then
// need a JFR recording like without file=.
namespace {

bool file_recording_on(AgentState& state) {
    return state.file_mode && !state.file_failed.load(std::memory_order_acquire);
}

}  // namespace

jvmtiError check_phase(AgentState& state) {
    if (!state.live.load(std::memory_order_acquire)) {
        return reject(Counter::rejected_wrong_phase, JVMTI_ERROR_WRONG_PHASE);
    }
    if (!file_recording_on(state) && !state.recording_seen.load(std::memory_order_acquire)) {
        return reject(Counter::rejected_wrong_phase, JVMTI_ERROR_WRONG_PHASE);
    }
    return JVMTI_ERROR_NONE;
}

jvmtiError check_available(AgentState& state, jvmtiEnv* env) {
    if ((!file_recording_on(state) && !state.event_enabled.load(std::memory_order_acquire)) ||
        DisabledEnvironments::contains(env)) {
        return reject(Counter::rejected_not_available, JVMTI_ERROR_NOT_AVAILABLE);
    }
    return JVMTI_ERROR_NONE;
}

RequestSlot* admit_and_claim(AgentState& state, jlong user_data, jvmtiError* result) {
    int64_t now = monotonic_ticks();
    if (!state.throttle.admit(now)) {
        Counters::add(Counter::throttled);
        *result = JVMTI_ERROR_NONE;
        return nullptr;
    }
    Counters::add(Counter::accepted);
    RequestSlot* slot = state.ring.claim();
    if (slot == nullptr) {
        Counters::add(Counter::dropped);
        *result = JVMTI_ERROR_OUT_OF_MEMORY;
        return nullptr;
    }
    slot->event.start_ticks = now;
    slot->event.user_data = user_data;
    return slot;
}

}  // namespace stackreq
