#include "emitter/slot_resolver.h"

#include "agent/agent_state.h"
#include "agent/log.h"
#include "emitter/frame_typer.h"
#include "emitter/java_frames.h"
#include "emitter/jvmti_records.h"
#include "emitter/thread_identities.h"
#include "walk/asgct_walk.h"
#include "walk/vmstructs_walk.h"

namespace stackreq {

SlotResolver::SlotResolver(jvmtiEnv* jvmti, uint32_t max_depth, uint32_t stack_cache)
    : jvmti_(jvmti), max_depth_(max_depth), methods_(jvmti) {
    walked_stacks_.set_capacity(stack_cache);
    frame_buffer_.resize(max_depth + 1);
}

void SlotResolver::append_walked_frames(const RequestSlot& slot) {
    for (int32_t i = 0; i < slot.frame_count; i++) {
        const CallFrame& frame = slot.frames[i];
        StackFrameEntry entry;
        bool native = frame.type == FrameType::kNative;
        entry.bci = native ? -1 : frame.bci_or_marker;
        entry.method_id = methods_.resolve(frame.method, entry.bci, &entry.line);
        entry.type = frame.type;
        frames_.push_back(entry);
    }
}

void SlotResolver::append_native_frames(const RequestSlot& slot) {
    for (uint32_t i = 0; i < slot.native_count; i++) {
        // A return address names the call's function: it is looked up one byte back.
        const uintptr_t pc = i == 0 ? slot.native_pcs[i] : slot.native_pcs[i] - 1;
        auto found = native_method_ids_.find(pc);
        if (found == native_method_ids_.end()) {
            const NativeFrameName name = native_symbols_.name(pc);
            found = native_method_ids_.emplace(pc, methods_.resolve_native(name.library, name.symbol)).first;
        }
        frames_.push_back(StackFrameEntry{found->second, -1, -1, FrameType::kNative});
    }
}

bool SlotResolver::append_frames_at_safepoint(jobject thread, bool* truncated) {
    jint count = 0;
    if (jvmti_->GetStackTrace(static_cast<jthread>(thread), 0, static_cast<jint>(frame_buffer_.size()),
                              frame_buffer_.data(), &count) != JVMTI_ERROR_NONE ||
        count <= 0) {
        return false;
    }
    *truncated = count > static_cast<jint>(max_depth_);
    if (*truncated) count = static_cast<jint>(max_depth_);
    for (jint i = 0; i < count; i++) {
        const jvmtiFrameInfo& frame = frame_buffer_[i];
        StackFrameEntry entry;
        bool native = frame.location < 0;
        entry.bci = native ? -1 : static_cast<int32_t>(frame.location);
        entry.method_id = methods_.resolve(frame.method, entry.bci, &entry.line);
        entry.type = native ? FrameType::kNative : FrameType::kJava;
        frames_.push_back(entry);
    }
    return true;
}

void SlotResolver::type_walked_frames(RequestSlot& slot) {
    for (int32_t i = 0; i < slot.frame_count; i++) {
        // AsyncGetCallTrace marks native frames with bci -3 (forte.cpp).
        slot.frames[i].type = slot.frames[i].bci_or_marker == -3 ? FrameType::kNative : FrameType::kJava;
    }
    type_frames(jvmti_records().compiled_methods, slot.top_pc, slot.physical_pcs, slot.physical_count,
                slot.physical_from_anchor, slot.frames, slot.frame_count);
}

void SlotResolver::end_at_virtual_thread_entry(RequestSlot& slot, bool mounted) {
    jmethodID entry = jvmti_records().virtual_thread_entry.load(std::memory_order_acquire);
    if (entry == nullptr) return;
    for (int32_t i = 0; i < slot.frame_count; i++) {
        if (slot.frames[i].method != entry) continue;
        // Frames still frozen in the continuation are missing below the ones walked: the stack
        // is cut there, as a truncated one.
        const jmethodID bottom = jvmti_records().virtual_thread_bottom.load(std::memory_order_acquire);
        const bool whole = bottom == nullptr || (i > 0 && slot.frames[i - 1].method == bottom);
        slot.frame_count = !mounted ? 0 : whole ? i + 1 : i;
        slot.truncated = !whole;
        return;
    }
}

bool SlotResolver::ready(const RequestSlot& slot, int64_t now) {
    return !slot.vmstructs.walked || now - slot.event.start_ticks > kMaxDescriptionWaitNanos ||
           java_frames_described(jvmti_records().compiled_methods, jvmti_records().method_table, slot);
}

StackTraceRequestEvent SlotResolver::resolve(JNIEnv* jni, RequestSlot& slot, EventStore& store) {
    StackTraceRequestEvent event = slot.event;
    const uint64_t virtual_thread = slot.kind == RequestKind::kBiasedOther ? 0 : slot.event.thread_id;
    event.thread_id = 0;
    event.stack_trace_id = 0;
    event.failed = true;
    event.biased = slot.kind != RequestKind::kWalked && slot.kind != RequestKind::kInternal;
    ThreadIdentities& threads = jvmti_records().threads;
    methods_.set_jni(jni);
    frames_.clear();
    bool truncated = slot.truncated;
    bool captured = false;
    const char* vmstructs_failure = nullptr;
    switch (slot.kind) {
        case RequestKind::kWalked:
        case RequestKind::kBiasedSelf:
            event.thread_id = virtual_thread != 0 ? virtual_thread : threads.key_for_tid(slot.tid);
            if (slot.vmstructs.walked) {
                build_java_frames(jvmti_records().compiled_methods, jvmti_records().method_table, slot,
                                  static_cast<int32_t>(max_depth_ - slot.native_count), &vmstructs_frames_, &vmstructs_failure);
            }
            end_at_virtual_thread_entry(slot, virtual_thread != 0);
            truncated = slot.truncated;
            if (slot.kind == RequestKind::kWalked && !ends_where_the_thread_does(slot, event.thread_id)) {
                slot.frame_count = kWalkNotWalkableJava;
                vmstructs_failure = "other-bottom-frame";
                VmStructsWalk::note_left_stack_rejected();
            }
            if (slot.frame_count > 0) {
                if (!slot.vmstructs.walked) type_walked_frames(slot);
                event.stack_trace_id =
                    walked_stacks_.find(slot.frames, slot.frame_count, slot.native_pcs, slot.native_count, truncated);
                if (event.stack_trace_id == 0) {
                    append_native_frames(slot);
                    append_walked_frames(slot);
                    event.stack_trace_id = store.intern_stack(frames_, truncated);
                    walked_stacks_.remember(slot.frames, slot.frame_count, slot.native_pcs, slot.native_count,
                                            truncated, event.stack_trace_id);
                }
                captured = true;
            } else if (slot.frame_count == kWalkNoJavaFrames && slot.native_count > 0) {
                // A Java thread without a Java frame (a native thread attached to the VM, in C code):
                // its native frames are its whole stack.
                append_native_frames(slot);
                captured = true;
            }
            break;
        case RequestKind::kInternal:
            event.thread_id = threads.key_for_internal_thread(slot.tid);
            append_native_frames(slot);
            captured = slot.native_count > 0;
            break;
        case RequestKind::kBiasedAtSafepoint: {
            event.thread_id = virtual_thread != 0 ? virtual_thread : threads.key_for_tid(slot.tid);
            jobject thread = threads.local_ref(jni, event.thread_id);
            captured = thread != nullptr && append_frames_at_safepoint(thread, &truncated);
            if (thread != nullptr) jni->DeleteLocalRef(thread);
            break;
        }
        case RequestKind::kBiasedOther:
            event.thread_id = threads.key_for_object(jvmti_, jni, slot.thread_ref);
            captured = append_frames_at_safepoint(slot.thread_ref, &truncated);
            jni->DeleteGlobalRef(slot.thread_ref);
            slot.thread_ref = nullptr;
            break;
    }
    if (captured) {
        event.failed = false;
        // Stack ids start at 1: 0 means the stack was taken here, not found by the walk cache.
        if (event.stack_trace_id == 0) event.stack_trace_id = store.intern_stack(frames_, truncated);
    }
    if (slot.kind == RequestKind::kWalked) log_walk(slot, captured, vmstructs_failure);
    return event;
}

bool SlotResolver::ends_where_the_thread_does(const RequestSlot& slot, uint64_t thread_key) {
    if (agent().options.walker != Walker::kVmStructs || slot.frame_count <= 0 || slot.truncated) return true;
    const jmethodID bottom = slot.frames[slot.frame_count - 1].method;
    if (slot.vmstructs.walked) {
        if (bottom_methods_.size() >= kMaxThreadsRemembered) bottom_methods_.clear();
        bottom_methods_[thread_key] = bottom;
        return true;
    }
    const auto known = bottom_methods_.find(thread_key);
    return known == bottom_methods_.end() || known->second == bottom;
}

// walker=vmstructs, log=debug: a line for each request the VMStructs walk left to AsyncGetCallTrace or
// could not make whole, so that a test can attribute each request's stack (or its failure) to
// the walk that made it; a request without a line was the VMStructs walk's, and succeeded.
void SlotResolver::log_walk(const RequestSlot& slot, bool captured, const char* vmstructs_failure) {
    if (agent().options.walker != Walker::kVmStructs || Log::level() < LogLevel::kDebug) return;
    if (slot.vmstructs.walked && captured) return;
    // A stack AsyncGetCallTrace walked and the emitter rejected: "<outcome>-then-<why>".
    std::string outcome = slot.vmstructs.walked ? vmstructs_failure != nullptr ? vmstructs_failure : "emptied"
                                        : vmstructs_walk_outcome_name(static_cast<VmStructsWalkOutcome>(slot.vmstructs.outcome));
    if (!slot.vmstructs.walked && vmstructs_failure != nullptr) outcome = outcome + "-then-" + vmstructs_failure;
    // A walk cut short names the code it stopped at: a compiled method, or the VM code's name; a
    // walk left for want of a last Java frame the native code at the signal (own_stop_pc).
    std::string stopped;
    if (!slot.vmstructs.walked && slot.vmstructs.outcome == static_cast<uint8_t>(VmStructsWalkOutcome::kNoLastJavaFrame) &&
        slot.vmstructs.stop_pc != 0) {
        stopped = " stopped-in=" + native_symbols_.name(slot.vmstructs.stop_pc).symbol;
    } else if (!slot.vmstructs.walked && slot.vmstructs.outcome == static_cast<uint8_t>(VmStructsWalkOutcome::kCutShort)) {
        jmethodID method = nullptr;
        stopped = jvmti_records().compiled_methods.compiled_method_at(slot.vmstructs.stop_pc, &method)
                      ? " stopped-in=compiled-method"
                      : " stopped-in=" + native_symbols_.name(slot.vmstructs.stop_pc).symbol;
        // top_bcp is the VMStructs walk's alone: whether it started in the interpreter.
        if (slot.vmstructs.top_bcp != 0) stopped += " from=interpreter";
    }
    const char* walker = slot.vmstructs.walked ? "vmstructs"
                         : VmStructsWalk::fails_outright(static_cast<VmStructsWalkOutcome>(slot.vmstructs.outcome)) ? "none"
                                                                                                  : "asgct";
    Log::debug("walk: user_data=%lld walker=%s outcome=%s failed=%d%s", static_cast<long long>(slot.event.user_data),
               walker, outcome.c_str(), captured ? 0 : 1, stopped.c_str());
}

}  // namespace stackreq
