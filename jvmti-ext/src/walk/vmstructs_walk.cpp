#include "walk/vmstructs_walk.h"

#include "hotspot/code_heaps.h"
#include "hotspot/code_pages.h"
#include "hotspot/stub_code.h"
#include "native_unwind/arch.h"
#include "native_unwind/native_unwind.h"
#include "walk/asgct_walk.h"
#include "walk/physical_walk.h"

namespace stackreq {

namespace {

// How many bytes of code at a PC the frame-setup decoding reads (arch.h).
constexpr uintptr_t kInstructionBytes = 16;
constexpr uintptr_t kWord = sizeof(uintptr_t);

// A leaf stub's frame is small; a frame pointer farther above sp is not the stub's (compiled
// code need not keep rbp as one).
constexpr uintptr_t kMaxStubFrameBytes = 512;

std::atomic<uint64_t> g_outcomes[static_cast<int>(VmStructsWalkOutcome::kCount)];
std::atomic<uint64_t> g_left_failed{0}, g_from_stub{0}, g_from_leaf_call{0}, g_from_blob_anchor{0}, g_from_frameless{0},
    g_entering{0};
// The most native frames unwound to find the compiled caller of a leaf call into the VM.
constexpr uint32_t kMaxLeafCallFrames = 32;

const char* const kOutcomeNames[] = {
    "walked",       "no-stack-bounds",    "sp-outside-stack", "unbuilt-unreadable", "stub-caller-unknown",
    "unsized-code", "no-last-java-frame", "cut-short", "no-java-frame", "exception-dispatch", "unbuilt-vm-frame"};
static_assert(sizeof(kOutcomeNames) / sizeof(kOutcomeNames[0]) == static_cast<size_t>(VmStructsWalkOutcome::kCount),
              "a name for each outcome");

// The caller of a compiled frame that is not set up (FrameSetup); false when sp is not readable.
bool caller_of_unbuilt(const ThreadSlotView& thread, const Registers& at, FrameSetup setup, Registers* out) {
    const uintptr_t* stack = reinterpret_cast<const uintptr_t*>(at.sp);
    if (setup == FrameSetup::kReturnAddressOnTop && thread.holds(at.sp, kWord)) {
        *out = Registers{stack[0], at.sp + kWord, at.fp};
        return true;
    }
    if (setup == FrameSetup::kSavedFpOnTop && thread.holds(at.sp, 2 * kWord)) {
        *out = Registers{stack[1], at.sp + 2 * kWord, stack[0]};
        return true;
    }
    return false;
}

// Whether a return address lies in a compiled method's code the walk can size.
bool in_compiled_code(uintptr_t pc) {
    return CodePages::contains(pc, 1) && !StubCode::contains(pc) && CodeHeaps::frame_words_at(pc) != 0;
}

// The compiled caller of the leaf stub the PC at is in. At the stub's entry and return the frame
// setup says where the return address is. In its body the stub has pushed rbp and set it to sp
// (`push rbp; mov rbp, rsp`), so the return address is above the saved frame pointer, except
// between its `leave` and its `ret` (`vzeroupper`, `xor eax, eax`), where the frame is gone, rbp
// is the caller's again and the return address is on top: so a word on top that returns into
// compiled code is taken first (inside the frame the top word is a saved register, not code), and
// the frame pointer's only when it is close above sp. False when neither returns into a compiled
// method.
bool caller_of_stub(const ThreadSlotView& thread, const Registers& at, Registers* out) {
    const FrameSetup setup = stub_frame_setup_at(at.pc);
    if (setup != FrameSetup::kBuilt) {
        return caller_of_unbuilt(thread, at, setup, out) && in_compiled_code(out->pc);
    }
    if (caller_of_unbuilt(thread, at, FrameSetup::kReturnAddressOnTop, out) && in_compiled_code(out->pc)) return true;
    if (at.fp < at.sp || at.fp - at.sp > kMaxStubFrameBytes || !thread.holds(at.fp, 2 * kWord)) return false;
    const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(at.fp);
    *out = Registers{frame[1], at.fp + 2 * kWord, frame[0]};
    return in_compiled_code(out->pc);
}

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
    if (!NativeUnwinder::caller_outside_objects(StackBounds{thread.stack_low, thread.stack_high}, at,
                                                kMaxLeafCallFrames, out, no_java_frame)) {
        return false;
    }
    if (in_compiled_code(out->pc)) return true;
    const Registers in_stub = *out;
    *from_stub = StubCode::contains(in_stub.pc) && caller_of_stub(thread, in_stub, out);
    return *from_stub;
}

// The interpreter entering a method, its frame not built yet: the interpreted caller jumped to
// it with the return address pushed, the sender's SP (the word above that address) in the
// bytecode-pointer register and in its own frame's last-SP slot (JDK 17 keeps it there as an
// address, JDK 21 and later as words from the frame pointer). All three agree only between that
// jump and the callee's first push; a callee entered from compiled code (through the c2i adapter,
// rbp then being compiled code's) fails them. The JVM's call stub (a call from the VM into Java)
// calls the method the same way, its return address being the call stub's, and the caller then
// the entry frame (PhysicalWalk passes it over). *caller receives the caller's registers.
bool entering_from_interpreter(const ThreadSlotView& thread, const Registers& at, uintptr_t bcp_register,
                               Registers* caller) {
    constexpr intptr_t kLastSpSlot = -2;
    if (bcp_register != at.sp + kWord || at.fp <= at.sp || !thread.holds(at.sp, kWord)) return false;
    const uintptr_t return_address = reinterpret_cast<const uintptr_t*>(at.sp)[0];
    if (PhysicalWalk::is_call_stub_return(return_address)) {
        *caller = Registers{return_address, at.sp + kWord, at.fp};
        return true;
    }
    if (!thread.holds(at.fp + kLastSpSlot * static_cast<intptr_t>(kWord), kWord)) return false;
    const uintptr_t last_sp = reinterpret_cast<const uintptr_t*>(at.fp)[kLastSpSlot];
    const intptr_t relative = (static_cast<intptr_t>(bcp_register) - static_cast<intptr_t>(at.fp)) /
                              static_cast<intptr_t>(kWord);
    if (last_sp != bcp_register && static_cast<intptr_t>(last_sp) != relative) return false;
    if (!PhysicalWalk::in_interpreter(return_address)) return false;
    *caller = Registers{return_address, at.sp + kWord, at.fp};
    return true;
}

// The interpreter entering a method that compiled code called through the c2i adapter: the
// adapter moved the arguments below the caller's frame, pushed the return address into the
// compiled caller again and left the caller's SP (its frame's start) in the bytecode-pointer
// register, rbp being the compiled caller's. Until the interpreter's entry pops the return
// address, the word on top returns into a compiled method (no word of the interpreter's own
// frames does: its expression stack holds Java values) and the register lies above it, within
// the arguments' reach.
bool entering_from_compiled_code(const ThreadSlotView& thread, const Registers& at, uintptr_t bcp_register,
                                 Registers* caller) {
    constexpr uintptr_t kMaxArgumentBytes = 4096;
    if (bcp_register <= at.sp || bcp_register - at.sp > kMaxArgumentBytes || bcp_register % kWord != 0 ||
        !thread.holds(at.sp, kWord) || !thread.holds(bcp_register, kWord)) {
        return false;
    }
    const uintptr_t return_address = reinterpret_cast<const uintptr_t*>(at.sp)[0];
    if (!in_compiled_code(return_address)) return false;
    *caller = Registers{return_address, bcp_register, at.fp};
    return true;
}

// Whether the top interpreted frame's saved bytecode pointer may stand in for the register when
// the register is not in the frame's method (decided in the emitter): the frame at fp is whole
// (its slots down to the bytecode pointer's lie above sp, so none is a stale word of an older
// frame) and the register is not a stack address (the sender's SP, as while the interpreter
// enters a method and rbp may still be a compiled caller's). There the interpreter is returning
// into the frame (the register not reloaded yet) or jumping to a callee: the saved one is the
// invoke's, the bytecode the frame is at.
bool saved_bcp_usable(const ThreadSlotView& thread, const Registers& at, uintptr_t bcp_register) {
    const uintptr_t frame_bytes = static_cast<uintptr_t>(-PhysicalWalk::kBcpSlot) * kWord;
    return at.fp >= at.sp + frame_bytes && !(bcp_register >= at.sp && bcp_register < thread.stack_high);
}

// The caller of frameless VM code (StubCode::Frameless): a vtable, itable or inline-cache stub
// never moves sp, so the return address into the compiled caller is on top; an adapter is known
// only while the interpreter's jump into it is as it left it (entering_from_interpreter).
bool caller_of_frameless(const ThreadSlotView& thread, const Registers& at, StubCode::Frameless kind,
                         uintptr_t bcp_register, Registers* out) {
    if (kind == StubCode::Frameless::kAdapters) return entering_from_interpreter(thread, at, bcp_register, out);
    return caller_of_unbuilt(thread, at, FrameSetup::kReturnAddressOnTop, out) && in_compiled_code(out->pc);
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
bool VmStructsWalk::fails_outright(VmStructsWalkOutcome outcome) {
    return outcome == VmStructsWalkOutcome::kUnbuiltVmFrame || outcome == VmStructsWalkOutcome::kNoLastJavaFrame;
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
    ucontext = AsgctWalk::context_of_interrupted_code(thread, ucontext);
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
        if (entering_from_interpreter(thread, at_signal, slot->vmstructs.top_bcp, &start) ||
            entering_from_compiled_code(thread, at_signal, slot->vmstructs.top_bcp, &start)) {
            // The method being entered is the top frame; the walk goes on at its caller.
            const uintptr_t entered = read_interpreter_method(ucontext);
            slot->frames[0] = CallFrame(kInterpretedFrame, reinterpret_cast<jmethodID>(entered));
            slot->physical_pcs[0] = 0;
            slot->vmstructs.top_interpreted = TopInterpreted::kEntering;
            count = 1;
            started = &g_entering;
        } else if (saved_bcp_usable(thread, at_signal, slot->vmstructs.top_bcp)) {
            slot->vmstructs.top_interpreted = TopInterpreted::kRegisterOrSaved;
        }
    } else if (in_stub) {
        // The stub has no Java frame: the walk starts at its caller, whose frame is complete
        // (the return address names the call's own debug record).
        if (!caller_of_stub(thread, at_signal, &start)) {
            return left_because(VmStructsWalkOutcome::kStubCallerUnknown, outcome);
        }
    } else if (bool before_entry = false; CodePages::contains(pc, kInstructionBytes) &&
                                          CodeHeaps::frame_words_and_method_at(pc, &method, &before_entry) != 0) {
        const bool in_poll_stub = in_return_poll_stub(pc, CodePages::contains(pc - kPollBytesBefore, kPollBytesBefore));
        const FrameSetup setup =
            before_entry || in_poll_stub ? FrameSetup::kReturnAddressOnTop : compiled_frame_setup_at(pc);
        if (setup != FrameSetup::kBuilt) {
            // The method is being entered or left: it is the top frame, its caller's registers
            // are where the return address lies.
            if (!caller_of_unbuilt(thread, at_signal, setup, &start)) {
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
        if (!frameless || !caller_of_unbuilt(thread, at_signal, FrameSetup::kReturnAddressOnTop, &start) ||
            !(in_compiled_code(start.pc) || PhysicalWalk::in_interpreter(start.pc))) {
            return left_because(VmStructsWalkOutcome::kUnsizedCode, outcome);
        }
        started = &g_from_frameless;
    } else if (const StubCode::Frameless frameless = StubCode::frameless_at(pc);
               frameless != StubCode::Frameless::kNone) {
        // Between a call (or the interpreter's jump) and the callee's frame: the walk starts at the
        // caller, at its call.
        if (!caller_of_frameless(thread, at_signal, frameless, read_interpreter_bcp(ucontext), &start)) {
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
    return count;
}

}  // namespace stackreq
