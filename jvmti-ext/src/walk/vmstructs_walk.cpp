#include "walk/vmstructs_walk.h"

#include "hotspot/code_heaps.h"
#include "hotspot/code_pages.h"
#include "hotspot/stub_code.h"
#include "native_unwind/arch.h"
#include "native_unwind/native_unwind.h"
#include "walk/asgct_walk.h"
#include "walk/physical_walk.h"
#include "walk/top_frame.h"

namespace stackreq {

namespace {

// How many bytes of code at a PC the frame-setup decoding reads (arch.h).
constexpr uintptr_t kInstructionBytes = 16;
constexpr uintptr_t kWord = sizeof(uintptr_t);

std::atomic<uint64_t> g_outcomes[static_cast<int>(VmStructsWalkOutcome::kCount)];
std::atomic<uint64_t> g_left_failed{0}, g_from_stub{0}, g_from_leaf_call{0}, g_from_blob_anchor{0}, g_from_frameless{0},
    g_entering{0}, g_at_handler_entry{0}, g_below_handler{0};
// The most native frames unwound to find the compiled caller of a leaf call into the VM.
constexpr uint32_t kMaxLeafCallFrames = 32;

const char* const kOutcomeNames[] = {
    "walked",       "no-stack-bounds",    "sp-outside-stack", "unbuilt-unreadable", "stub-caller-unknown",
    "unsized-code", "no-last-java-frame", "cut-short", "no-java-frame", "exception-dispatch", "unbuilt-vm-frame",
    "interpreter-returning"};
static_assert(sizeof(kOutcomeNames) / sizeof(kOutcomeNames[0]) == static_cast<size_t>(VmStructsWalkOutcome::kCount),
              "a name for each outcome");

}  // namespace

// Whether a return address lies in a compiled method's code the walk can size.
bool top_frame::in_compiled_code(uintptr_t pc) {
    return CodePages::contains(pc, 1) && !StubCode::contains(pc) && CodeHeaps::frame_words_at(pc) != 0;
}

namespace {

using top_frame::in_compiled_code;

// The compiled caller of the native code at at.pc when the thread's frame anchor holds no last
// Java frame: compiled code calls some VM and C functions as leaves, without setting the anchor
// (GC barriers, math and conversion routines), and those frames are unwound with the objects'
// call-frame rows (native_unwind.h) up to the return address into the compiled method.
// *no_java_frame: the unwind reached the thread's first frame: the thread has no Java frame at
// all (it is starting or ending).
// A leaf stub can make such a call too (an oop arraycopy's G1 barrier): then the walk goes on to
// the stub's own compiled caller (*from_stub).
bool caller_of_leaf_call(const ThreadSlotView& thread, const Registers& at, Registers* out, bool* no_java_frame,
                         bool* from_stub) {
    *from_stub = false;
    // Only where the native unwinder knows the architecture's rules (native_unwind/arch.h).
    if (!kNativeUnwindKnown) return false;
    if (!NativeUnwinder::caller_outside_objects(StackBounds{thread.stack_low, thread.stack_high}, at,
                                                kMaxLeafCallFrames, out, no_java_frame)) {
        return false;
    }
    if (in_compiled_code(out->pc)) return true;
    const Registers in_stub = *out;
    *from_stub = StubCode::contains(in_stub.pc) && top_frame::caller_of_stub(thread, nullptr, in_stub, out);
    return *from_stub;
}

int32_t left_because(VmStructsWalkOutcome why, VmStructsWalkOutcome* outcome) {
    *outcome = why;
    return 0;
}

}  // namespace

const char* vmstructs_walk_outcome_name(VmStructsWalkOutcome outcome) {
    const int index = static_cast<int>(outcome);
    return index >= 0 && index < static_cast<int>(VmStructsWalkOutcome::kCount) ? kOutcomeNames[index] : "unknown";
}

uint64_t VmStructsWalk::count(VmStructsWalkOutcome outcome) {
    return g_outcomes[static_cast<int>(outcome)].load(std::memory_order_relaxed);
}
uint64_t VmStructsWalk::walked() { return count(VmStructsWalkOutcome::kWalked); }
uint64_t VmStructsWalk::walked_from_stub() { return g_from_stub.load(std::memory_order_relaxed); }
uint64_t VmStructsWalk::walked_from_leaf_call() { return g_from_leaf_call.load(std::memory_order_relaxed); }
uint64_t VmStructsWalk::walked_from_blob_anchor() { return g_from_blob_anchor.load(std::memory_order_relaxed); }
uint64_t VmStructsWalk::walked_from_frameless() { return g_from_frameless.load(std::memory_order_relaxed); }
uint64_t VmStructsWalk::walked_entering() { return g_entering.load(std::memory_order_relaxed); }
uint64_t VmStructsWalk::walked_at_handler_entry() { return g_at_handler_entry.load(std::memory_order_relaxed); }
uint64_t VmStructsWalk::walked_below_handler() { return g_below_handler.load(std::memory_order_relaxed); }
bool VmStructsWalk::fails_outright(VmStructsWalkOutcome outcome) {
    return outcome == VmStructsWalkOutcome::kUnbuiltVmFrame || outcome == VmStructsWalkOutcome::kNoLastJavaFrame ||
           outcome == VmStructsWalkOutcome::kInterpreterReturning;
}
uint64_t VmStructsWalk::left_to_async_get_call_trace() {
    uint64_t left = 0;
    for (int i = 1; i < static_cast<int>(VmStructsWalkOutcome::kCount); i++) {
        if (!fails_outright(static_cast<VmStructsWalkOutcome>(i))) left += count(static_cast<VmStructsWalkOutcome>(i));
    }
    return left;
}
uint64_t VmStructsWalk::left_and_failed() { return g_left_failed.load(std::memory_order_relaxed); }
void VmStructsWalk::note_left_walk(int32_t frame_count) {
    if (frame_count <= 0) g_left_failed.fetch_add(1, std::memory_order_relaxed);
}
void VmStructsWalk::note_left_stack_rejected() { g_left_failed.fetch_add(1, std::memory_order_relaxed); }

int32_t VmStructsWalk::walk(const ThreadSlotView& thread, void* ucontext, RequestSlot* slot, int32_t max, bool* truncated,
                      VmStructsWalkOutcome* outcome) {
    *outcome = VmStructsWalkOutcome::kWalked;
    const int32_t count = walk_frames(thread, ucontext, slot, max, truncated, outcome);
    g_outcomes[static_cast<int>(*outcome)].fetch_add(1, std::memory_order_relaxed);
    return count;
}

int32_t VmStructsWalk::walk_frames(const ThreadSlotView& thread, void* ucontext, RequestSlot* slot, int32_t max,
                             bool* truncated, VmStructsWalkOutcome* outcome) {
    *truncated = false;
    slot->vmstructs.top_bcp = 0;
    slot->vmstructs.top_unbuilt = false;
    slot->vmstructs.top_interpreted = TopInterpreted::kRegister;
    slot->physical_from_anchor = false;
    slot->vmstructs.stop_pc = 0;
    slot->vmstructs.sized_frames = 0;
    if (thread.stack_high == 0 || max <= 1) return left_because(VmStructsWalkOutcome::kNoStackBounds, outcome);
    void* const at_request = ucontext;
    ucontext = AsgctWalk::context_of_interrupted_code(thread, ucontext);
    const bool at_handler_entry = ucontext != at_request;
    // aarch64: a signal in another handler (JFR's thread suspension) walks the code that one
    // interrupted; a leaf call's C code stays for caller_of_leaf_call below.
    bool below_handler = false;
    if (kWalkBelowSignalHandlers) {
        bool in_c_code = false;
        void* interrupted = AsgctWalk::context_below_handlers(thread, ucontext, &in_c_code);
        below_handler = interrupted != ucontext;
        ucontext = interrupted;
    }
    const Registers at_signal = read_registers(ucontext);
    if (!thread.holds(at_signal.sp, kWord)) return left_because(VmStructsWalkOutcome::kSpOutsideStack, outcome);
    Registers start = at_signal;
    int32_t count = 0;
    const uintptr_t pc = at_signal.pc;
    uintptr_t method = 0;
    const bool in_stub = StubCode::contains(pc);
    // The counter of the walks that started where this one does (not at the signal's frame).
    std::atomic<uint64_t>* started = in_stub ? &g_from_stub : nullptr;
    if (PhysicalWalk::in_interpreter(pc)) {
        slot->vmstructs.top_bcp = read_interpreter_bcp(ucontext);
        const top_frame::InterpreterTop doing = top_frame::interpreter_top(thread, ucontext, at_signal, &start);
        if (doing == top_frame::InterpreterTop::kUnknown) {
            // The frame at the frame pointer may be the running method's caller, or an older one.
            return left_because(VmStructsWalkOutcome::kUnsizedCode, outcome);
        }
        if (doing == top_frame::InterpreterTop::kReturningToCompiledCode) {
            return left_because(VmStructsWalkOutcome::kInterpreterReturning, outcome);
        }
        if (doing == top_frame::InterpreterTop::kEntering) {
            // The method being entered is the top frame; the walk goes on at its caller.
            const uintptr_t entered = read_interpreter_method(ucontext);
            slot->frames[0] = CallFrame(kInterpretedFrame, reinterpret_cast<jmethodID>(entered));
            slot->physical_pcs[0] = 0;
            slot->vmstructs.top_interpreted = TopInterpreted::kEntering;
            count = 1;
            started = &g_entering;
        } else if (doing == top_frame::InterpreterTop::kRunningOrSaved) {
            slot->vmstructs.top_interpreted = TopInterpreted::kRegisterOrSaved;
        }
    } else if (in_stub) {
        // The stub has no Java frame: the walk starts at its caller, whose frame is complete
        // (the return address names the call's own debug record).
        if (!top_frame::caller_of_stub(thread, ucontext, at_signal, &start)) {
            return left_because(VmStructsWalkOutcome::kStubCallerUnknown, outcome);
        }
    } else if (bool before_entry = false; CodePages::contains(pc, kInstructionBytes) &&
                                          CodeHeaps::frame_words_and_method_at(pc, &method, &before_entry) != 0) {
        const bool in_poll_stub = in_return_poll_stub(pc, CodePages::contains(pc - kPollBytesBefore, kPollBytesBefore));
        const FrameSetup setup =
            before_entry || in_poll_stub ? top_frame::setup_at_call() : compiled_frame_setup_at(pc);
        if (setup != FrameSetup::kBuilt) {
            // The method is being entered or left: it is the top frame, its caller's registers
            // are where the return address lies.
            if (!top_frame::caller_of_unbuilt(thread, ucontext, at_signal, setup, &start)) {
                return left_because(VmStructsWalkOutcome::kUnbuiltUnreadable, outcome);
            }
            slot->frames[0] = CallFrame(kCompiledFrame, reinterpret_cast<jmethodID>(method));
            slot->physical_pcs[0] = pc;
            slot->vmstructs.top_unbuilt = true;
            count = 1;
        }
    } else if (!CodePages::contains(pc, 1) && CodeHeaps::frame_words_at(pc) != 0) {
        // VM code with a frame of its own (C2's rethrow and allocation stubs, the exception blob,
        // C1's runtime stubs, the call-resolution blobs): its frame is the one the anchor holds
        // while it calls into the VM. Outside that window its frame is being built or torn down
        // (and the exception blob's caller is in a register): the exception-dispatch code is left
        // to AsyncGetCallTrace (no wrong trace of its there in the oracle), the rest fails.
        if (!PhysicalWalk::last_java_frame_in_blob(thread, pc, &start)) {
            return left_because(StubCode::in_exception_dispatch(pc) ? VmStructsWalkOutcome::kExceptionDispatch
                                                                    : VmStructsWalkOutcome::kUnbuiltVmFrame,
                                outcome);
        }
        slot->physical_from_anchor = true;
        started = &g_from_blob_anchor;
    } else if (StubCode::in_exception_dispatch(pc)) {
        // Frameless dispatch code (forward_exception, catch_exception): the frame of the method
        // the exception left is popped or being unwound, and no anchor says where the caller is.
        return left_because(VmStructsWalkOutcome::kExceptionDispatch, outcome);
    } else if (CodePages::contains(pc, 1)) {
        // A compiled method without a frame (a method handle intrinsic, which only jumps to its
        // target) has its caller's return address on top; any other is code the walk cannot size.
        bool frameless = false;
        CodeHeaps::frame_words_and_method_at(pc, nullptr, nullptr, &frameless);
        if (!frameless || !top_frame::caller_at_call(thread, ucontext, at_signal, &start) ||
            !(in_compiled_code(start.pc) || PhysicalWalk::in_interpreter(start.pc))) {
            return left_because(VmStructsWalkOutcome::kUnsizedCode, outcome);
        }
        started = &g_from_frameless;
    } else if (const StubCode::Frameless frameless = StubCode::frameless_at(pc);
               frameless != StubCode::Frameless::kNone) {
        // Between a call (or the interpreter's jump) and the callee's frame: the walk starts at the
        // caller, at its call.
        const bool found = frameless == StubCode::Frameless::kAdapters
                               ? top_frame::caller_of_adapter(thread, ucontext, at_signal, &start)
                               : top_frame::caller_at_call(thread, ucontext, at_signal, &start) &&
                                     in_compiled_code(start.pc);
        if (!found) {
            return left_because(VmStructsWalkOutcome::kNoLastJavaFrame, outcome);
        }
        started = &g_from_frameless;
    } else if (PhysicalWalk::last_java_frame(thread, &start)) {
        // The PC is in native code: the call into the VM that set the anchor has been made, so the
        // anchor is whole (its PC, or the call's return address below its SP), wherever it is.
        slot->physical_from_anchor = true;
    } else if (PhysicalWalk::in_native_code(thread)) {
        // No Java frame at all: proving it by unwinding the native frames to the thread's first
        // one took 15-20 us (stackreq's emitter thread, sampled as any Java thread).
        return left_because(VmStructsWalkOutcome::kNoJavaFrame, outcome);
    } else if (bool no_java_frame = false, from_stub = false;
               !caller_of_leaf_call(thread, at_signal, &start, &no_java_frame, &from_stub)) {
        slot->vmstructs.stop_pc = pc;
        return left_because(no_java_frame ? VmStructsWalkOutcome::kNoJavaFrame : VmStructsWalkOutcome::kNoLastJavaFrame, outcome);
    } else {
        started = from_stub ? &g_from_stub : &g_from_leaf_call;
    }
    bool complete = false;
    count += PhysicalWalk::walk_java(thread, start, slot->frames + count, slot->physical_pcs + count, max - count,
                                     &complete, &slot->vmstructs.stop_pc);
    if (count == 0 || (!complete && count < max)) {
        slot->vmstructs.sized_frames = count;
        return left_because(VmStructsWalkOutcome::kCutShort, outcome);
    }
    *truncated = !complete;
    if (started != nullptr) started->fetch_add(1, std::memory_order_relaxed);
    if (at_handler_entry) g_at_handler_entry.fetch_add(1, std::memory_order_relaxed);
    if (below_handler) g_below_handler.fetch_add(1, std::memory_order_relaxed);
    return count;
}

}  // namespace stackreq
