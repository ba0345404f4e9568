// RequestStackTrace: stackreq's implementation of the JEP's function. The calling thread's path
// runs in signal handlers: atomics, the preallocated ring, the lock-free thread registry, the
// walks (walk/) and, with native=on, the native unwinder, from threads JVMTI does not show too.
// A request for another thread goes on in normal context (agent/request_functions.cpp).
#include <errno.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>

#include "agent/agent_state.h"
#include "hotspot/internal_threads.h"
#include "native_unwind/arch.h"
#include "native_unwind/native_unwind.h"
#include "native_unwind/safe_read.h"
#include "request/counters.h"
#include "request/request_gate.h"
#include "request/request_timing.h"
#include "request/thread_registry.h"
#include "stackreq.h"
#include "walk/asgct_walk.h"
#include "walk/physical_walk.h"
#include "walk/vmstructs_walk.h"

namespace stackreq {

namespace {

// Async-signal-safe. walker=vmstructs: the VMStructs walk into slot (vmstructs_walk.h); false, the
// slot's walk fields untouched but vmstructs.walked and .outcome, when AsyncGetCallTrace must walk instead.
bool walk_vmstructs(const ThreadSlotView& thread, void* ucontext, uint32_t java_depth, RequestSlot* slot) {
    bool truncated = false;
    VmStructsWalkOutcome outcome = VmStructsWalkOutcome::kWalked;
    const int32_t count = VmStructsWalk::walk(thread, ucontext, slot, static_cast<int32_t>(java_depth), &truncated, &outcome);
    slot->vmstructs.outcome = static_cast<uint8_t>(outcome);
    slot->vmstructs.walked = count > 0;
    if (!slot->vmstructs.walked) return false;
    // The emitter makes the frames (java_frames.h); frame_count stays > 0 until then.
    slot->frame_count = count;
    slot->physical_count = count;
    slot->top_pc = 0;
    slot->truncated = truncated;
    return true;
}

// native=on, an unbiased request: records the native frames above the Java ones into the slot
// and returns how many frames are left for the Java walk.
uint32_t capture_native_frames(AgentState& state, const ThreadSlotView& thread, void* ucontext, RequestSlot* slot) {
    slot->native_count = 0;
    if (state.ring.native_depth() == 0 || slot->kind != RequestKind::kWalked || thread.stack_high == 0) {
        return state.ring.max_depth();
    }
    const Registers at_signal = read_registers(AsgctWalk::context_of_interrupted_code(thread, ucontext));
    slot->native_count = NativeUnwinder::unwind(StackBounds{thread.stack_low, thread.stack_high}, at_signal,
                                                slot->native_pcs, state.ring.native_depth());
    return state.ring.max_depth() - slot->native_count;
}

// native=on, an unbiased request from a thread the registry does not hold (internal_threads.h):
// the event has the native frames from the signal's registers and the OS thread.
template <typename Clock>
jvmtiError request_internal_thread(AgentState& state, void* ucontext, jlong user_data, Caller caller, Clock& clock) {
    jvmtiError result = JVMTI_ERROR_NONE;
    RequestSlot* slot = admit_and_claim(state, user_data, &result);
    if (slot == nullptr) return result;
    Counters::add(Counter::internal_thread);
    slot->thread_ref = nullptr;
    slot->caller = caller;
    slot->tid = static_cast<int32_t>(syscall(SYS_gettid));
    slot->event.thread_id = 0;
    slot->kind = RequestKind::kInternal;
    slot->frame_count = 0;
    slot->top_pc = 0;
    slot->physical_count = 0;
    slot->physical_from_anchor = false;
    clock.walk_begins();
    const Registers at_signal = read_registers(ucontext);
    StackBounds stack{};
    if (!InternalThreads::current_stack(at_signal.sp, &stack)) Counters::add(Counter::kernel_read);
    slot->native_count = NativeUnwinder::unwind(stack, at_signal, slot->native_pcs, state.ring.native_depth());
    clock.walk_ends();
    slot->truncated = slot->native_count == state.ring.native_depth();
    if (state.ring.publish(slot)) sem_post(&state.emitter_wakeup);
    clock.finished(nullptr, ucontext, state.ring.max_depth());
    return JVMTI_ERROR_NONE;
}

// getcontext is declared returns_twice, like setjmp, so GCC warns that the ucontext argument,
// assigned after it, might be clobbered by a second return; nothing here ever resumes a saved
// context (no setcontext), so getcontext returns once.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wclobbered"
template <typename Clock>
jvmtiError request_current_thread(AgentState& state, void* ucontext, jlong user_data, Caller caller, Clock& clock) {
    int32_t tid = 0;
    ThreadSlotView thread;
    if (!ThreadRegistry::find_current(&thread, &tid)) {
        if (ThreadRegistry::current_has_ended()) {
            return reject(Counter::rejected_thread_not_alive, JVMTI_ERROR_THREAD_NOT_ALIVE);
        }
        if (state.ring.native_depth() > 0) {
            ucontext_t own_context;
            if (ucontext == nullptr && state.options.null_ucontext_from_signal) {
                // From a signal handler: the signal's context, as for a Java thread below.
                getcontext(&own_context);
                StackBounds stack{};
                InternalThreads::current_stack(read_registers(&own_context).sp, &stack);
                ucontext = AsgctWalk::signal_context_of_caller(stack, &own_context);
            }
            if (ucontext != nullptr) return request_internal_thread(state, ucontext, user_data, caller, clock);
        }
        return reject(Counter::rejected_other, JVMTI_ERROR_UNATTACHED_THREAD);
    }
    if (thread.jfr_excluded) return reject(Counter::rejected_wrong_phase, JVMTI_ERROR_WRONG_PHASE);
    jvmtiError result = JVMTI_ERROR_NONE;
    RequestSlot* slot = admit_and_claim(state, user_data, &result);
    if (slot == nullptr) return result;
    slot->thread_ref = nullptr;
    slot->caller = caller;
    slot->tid = tid;
    slot->event.thread_id = thread.mounted_thread_key;
    // Without a ucontext the walk starts from this call's own stack pointer: from a JNI method or
    // a JVMTI callback the thread is in native state and AsyncGetCallTrace walks from its last
    // Java frame, i.e. exactly the Java frames at the call. In a handler that interrupted Java
    // code AsyncGetCallTrace would read the context as the top Java frame: a null PC makes it fail
    // there at once (failed = true) instead of unwinding stackreq's own frames. getcontext only
    // saves registers and makes one sigprocmask system call: async-signal-safe.
    ucontext_t own_context;
    if (ucontext == nullptr) {
        getcontext(&own_context);
        // From a signal handler (Datadog's wall-clock engine requests so): the signal's own
        // context, which the kernel saved on this stack, makes it a request of the exact moment.
        if (state.options.null_ucontext_from_signal) {
            ucontext = AsgctWalk::signal_context_of_caller(thread, &own_context);
        }
    }
    if (ucontext == nullptr) {
        Registers registers = read_registers(&own_context);
        registers.pc = 0;
        registers.fp = 0;
        write_registers(&own_context, registers);
        ucontext = &own_context;
        slot->kind = RequestKind::kBiasedSelf;
    } else {
        slot->kind = RequestKind::kWalked;
    }
    bool recovered = false;
    const bool vmstructs_walker = state.options.walker == Walker::kVmStructs && slot->kind == RequestKind::kWalked;
    clock.walk_begins();
    const uint32_t java_depth = capture_native_frames(state, thread, ucontext, slot);
    if (vmstructs_walker && !walk_vmstructs(thread, ucontext, java_depth, slot) &&
        VmStructsWalk::fails_outright(static_cast<VmStructsWalkOutcome>(slot->vmstructs.outcome))) {
        slot->frame_count = kWalkUnbuiltVmFrame;
        slot->top_pc = 0;
        slot->physical_count = 0;
        slot->truncated = false;
    } else if (!vmstructs_walker || !slot->vmstructs.walked) {
        slot->vmstructs.walked = false;
        Registers top{};
        slot->frame_count = AsgctWalk::walk(thread, ucontext, slot->frames, java_depth, &recovered, &top,
                                            vmstructs_walker ? nullptr : clock.first_walk_cycles());
        // AsyncGetCallTrace answers "unknown, not Java" for a thread in C code that has no Java frame
        // at all (a native thread attached to the VM) as for one whose frames it cannot walk; the
        // anchor tells them apart, and the first's native frames are its whole stack
        // (SlotResolver::resolve).
        if (slot->native_count > 0 && slot->frame_count == kWalkUnknownNotJava &&
            PhysicalWalk::without_java_frames(thread)) {
            slot->frame_count = kWalkNoJavaFrames;
        }
        // The VMStructs walk was cut short below frames it could size, so the stack goes on below them;
        // AsyncGetCallTrace ends its walk silently at a sender it cannot walk and returns the
        // frames it has as a whole stack. One that reaches no deeper than the VMStructs walk did is such
        // a stack (the oracle found a one-frame stack of a method deep in a class loader's call).
        if (vmstructs_walker && slot->frame_count > 0 && slot->frame_count <= slot->vmstructs.sized_frames &&
            slot->vmstructs.outcome == static_cast<uint8_t>(VmStructsWalkOutcome::kCutShort)) {
            slot->frame_count = kWalkNotWalkableJava;
        }
        slot->top_pc = top.pc;
        if (vmstructs_walker) VmStructsWalk::note_left_walk(slot->frame_count);
        slot->physical_count = kHotSpotFramesKnown && slot->frame_count > 0 ? PhysicalWalk::walk(thread, top, slot->physical_pcs,
                                                                          static_cast<int32_t>(state.ring.max_depth()),
                                                                          &slot->physical_from_anchor)
                                                     : 0;
        slot->truncated = slot->frame_count == static_cast<int32_t>(java_depth);
    }
    clock.walk_ends();
    if (recovered) Counters::add(Counter::recovered);
    const bool at_safepoint = slot->kind == RequestKind::kBiasedSelf && slot->frame_count <= 0;
    if (at_safepoint) {
        slot->kind = RequestKind::kBiasedAtSafepoint;
        slot->frame_count = 0;
        slot->physical_count = 0;
        slot->native_count = 0;
        slot->truncated = false;
    }
    // The emitter is woken at once for a stack it must take at the thread's next safepoint.
    if (state.ring.publish(slot) || at_safepoint) sem_post(&state.emitter_wakeup);
    clock.finished(&thread, ucontext, state.ring.max_depth());
    return JVMTI_ERROR_NONE;
}

#pragma GCC diagnostic pop

// The request's clock: none, unless latency= asks for timing (request_timing.h).
jvmtiError request_current_thread(AgentState& state, void* ucontext, jlong user_data, Caller caller) {
    if (!state.measure_latency) {
        UntimedRequest clock;
        return request_current_thread(state, ucontext, user_data, caller, clock);
    }
    TimedRequest clock = TimedRequest::start(state, ucontext);
    return request_current_thread(state, ucontext, user_data, caller, clock);
}

// A reference JNI knows, without dereferencing it: HotSpot tells local, global and weak references
// by where they lie (a local block, the global storage, a frame's argument slots) and reads
// candidate storage blocks with its own fault-tolerant SafeFetch.
bool is_reference(JNIEnv* jni, jobject candidate) {
    return candidate != nullptr && jni->GetObjectRefType(candidate) != JNIInvalidRefType;
}

// The thread argument comes in two forms: the JEP text passes a jthread* (a pointer to a variable
// holding the reference), openjdk/jdk PR 31059's revision a jthread by value. A value JNI knows
// as a reference is the thread itself; otherwise it is taken for a pointer and the word it points
// to is read with safe_read (which fails instead of faulting), and must be a reference itself or
// null (the calling thread). *target is null for the calling thread.
jvmtiError resolve_thread_argument(JNIEnv* jni, void* argument, jthread* target) {
    *target = nullptr;
    if (argument == nullptr) return JVMTI_ERROR_NONE;
    if (is_reference(jni, static_cast<jobject>(argument))) {
        *target = static_cast<jthread>(argument);
    } else {
        jthread pointed = nullptr;
        if (!read_at(reinterpret_cast<uintptr_t>(argument), &pointed)) return JVMTI_ERROR_INVALID_THREAD;
        if (pointed != nullptr && !is_reference(jni, pointed)) return JVMTI_ERROR_INVALID_THREAD;
        *target = pointed;
    }
    // A cleared weak reference resolves to null: IsInstanceOf would crash on it.
    if (*target != nullptr && jni->IsSameObject(*target, nullptr)) return JVMTI_ERROR_INVALID_THREAD;
    return JVMTI_ERROR_NONE;
}

bool is_current_thread(AgentState& state, JNIEnv* jni, jthread target) {
    jthread current = nullptr;
    if (state.jvmti->GetCurrentThread(&current) != JVMTI_ERROR_NONE) return false;
    bool same = jni->IsSameObject(current, target);
    jni->DeleteLocalRef(current);
    return same;
}

jvmtiError request(AgentState& state, void* thread, void* ucontext, jlong user_data, Caller caller) {
    if (caller.env == nullptr) return reject(Counter::rejected_other, JVMTI_ERROR_INVALID_ENVIRONMENT);
    jvmtiError error = check_phase(state);
    if (error != JVMTI_ERROR_NONE) return error;
    if (thread != nullptr) {
        JNIEnv* jni = nullptr;
        if (state.vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK || jni == nullptr) {
            return reject(Counter::rejected_other, JVMTI_ERROR_UNATTACHED_THREAD);
        }
        jthread target = nullptr;
        error = resolve_thread_argument(jni, thread, &target);
        if (error != JVMTI_ERROR_NONE) return reject(Counter::rejected_invalid_thread, error);
        if (target != nullptr && !is_current_thread(state, jni, target)) {
            return request_other_thread(state, jni, target, user_data, caller);
        }
    }
    error = check_available(state, caller.env);
    if (error != JVMTI_ERROR_NONE) return error;
    return request_current_thread(state, ucontext, user_data, caller);
}

// Counts the request as in flight for its whole duration (see AgentState::in_flight).
class InFlight {
public:
    explicit InFlight(AgentState& state) : state_(state) { state_.in_flight.fetch_add(1, std::memory_order_acq_rel); }
    ~InFlight() { state_.in_flight.fetch_sub(1, std::memory_order_acq_rel); }

private:
    AgentState& state_;
};

}  // namespace

}  // namespace stackreq

using namespace stackreq;

// The environment and the call's return address name the library that requested (the event's
// requester field, requesters.h): __builtin_return_address reads the call's own frame, nothing else.
extern "C" JNIEXPORT jvmtiError JNICALL stackreq_RequestStackTraceImpl(jvmtiEnv* env, jthread* thread,
                                                                       void* ucontext, jlong user_data) {
    // The caller is usually a signal handler: the interrupted code's errno must outlive the
    // request, whose gettid and safe reads (native=on, process_vm_readv) are system calls.
    const int interrupted_errno = errno;
    AgentState& state = agent();
    InFlight in_flight(state);
    const jvmtiError result = request(state, thread, ucontext, user_data,
                                      Caller{env, reinterpret_cast<uintptr_t>(__builtin_return_address(0))});
    errno = interrupted_errno;
    return result;
}

