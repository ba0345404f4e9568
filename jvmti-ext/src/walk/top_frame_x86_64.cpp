#if defined(__x86_64__) && defined(__linux__)

#include "walk/top_frame.h"

#include "walk/physical_walk.h"

namespace stackreq {
namespace top_frame {

namespace {

constexpr uintptr_t kWord = sizeof(uintptr_t);

// A leaf stub's frame is small; a frame pointer farther above sp is not the stub's (compiled
// code need not keep rbp as one).
constexpr uintptr_t kMaxStubFrameBytes = 512;

// The interpreter entering a method, its frame not built yet: the interpreted caller jumped to
// it with the return address pushed, the sender's SP (the word above that address) in the
// bytecode-pointer register and in its own frame's last-SP slot (JDK 11 and 17 keep it there as an
// address, JDK 21 and later as words from the frame pointer); a method handle linker
// (linkToStatic, ...) pushes the return address again one word higher, where the trailing
// MemberName argument was, which is then the sender's SP. All three agree only between that
// jump and the callee's first push; a callee entered from compiled code (through the c2i adapter,
// rbp then being compiled code's) fails them. The JVM's call stub (a call from the VM into Java)
// calls the method the same way, its return address being the call stub's, and the caller then
// the entry frame (PhysicalWalk passes it over). *caller receives the caller's registers.
bool entering_from_interpreter(const ThreadSlotView& thread, const Registers& at, uintptr_t bcp_register,
                               Registers* caller) {
    constexpr intptr_t kLastSpSlot = kInterpreterLastSpSlot;
    if ((bcp_register != at.sp + kWord && bcp_register != at.sp) || at.fp <= at.sp || !thread.holds(at.sp, kWord)) {
        return false;
    }
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

// The interpreter's return template between remove_activation's `leave` and the jump back to a
// compiled caller: the method's frame is removed, rbp is the compiled caller's (which C2 does not
// keep as a frame pointer: it can still be an older interpreted frame's, whose method would be
// taken for the running one, the compiled frame between lost), and the return address is on top
// of the stack, then popped into the bytecode-pointer register. A bytecode pointer is never in
// compiled code, nor is a running method's top stack word (a Java value or the interpreter's own
// return address).
bool returning_to_compiled_code(const ThreadSlotView& thread, const Registers& at, uintptr_t bcp_register) {
    if (in_compiled_code(bcp_register)) return true;
    return thread.holds(at.sp, kWord) && in_compiled_code(reinterpret_cast<const uintptr_t*>(at.sp)[0]);
}

}  // namespace

bool caller_of_unbuilt(const ThreadSlotView& thread, const void*, const Registers& at, FrameSetup setup,
                       Registers* out) {
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

FrameSetup setup_at_call() { return FrameSetup::kReturnAddressOnTop; }

bool caller_at_call(const ThreadSlotView& thread, const void* ucontext, const Registers& at, Registers* out) {
    return caller_of_unbuilt(thread, ucontext, at, FrameSetup::kReturnAddressOnTop, out);
}

// At the stub's entry and return the frame setup says where the return address is. In its body
// the stub has pushed rbp and set it to sp (`push rbp; mov rbp, rsp`), so the return address is
// above the saved frame pointer, except between its `leave` and its `ret` (`vzeroupper`, `xor
// eax, eax`), where the frame is gone, rbp is the caller's again and the return address is on top:
// so a word on top that returns into compiled code is taken first (inside the frame the top word
// is a saved register, not code), and the frame pointer's only when it is close above sp. False
// when neither returns into a compiled method.
bool caller_of_stub(const ThreadSlotView& thread, const void* ucontext, const Registers& at, Registers* out) {
    const FrameSetup setup = stub_frame_setup_at(at.pc);
    if (setup != FrameSetup::kBuilt) {
        return caller_of_unbuilt(thread, ucontext, at, setup, out) && in_compiled_code(out->pc);
    }
    if (caller_of_unbuilt(thread, ucontext, at, FrameSetup::kReturnAddressOnTop, out) && in_compiled_code(out->pc)) {
        return true;
    }
    if (at.fp < at.sp || at.fp - at.sp > kMaxStubFrameBytes || !thread.holds(at.fp, 2 * kWord)) return false;
    const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(at.fp);
    *out = Registers{frame[1], at.fp + 2 * kWord, frame[0]};
    return in_compiled_code(out->pc);
}

// An adapter is known only while the interpreter's jump into it is as it left it.
bool caller_of_adapter(const ThreadSlotView& thread, const void* ucontext, const Registers& at, Registers* out) {
    return ucontext != nullptr && entering_from_interpreter(thread, at, read_interpreter_bcp(ucontext), out);
}

InterpreterTop interpreter_top(const ThreadSlotView& thread, const void* ucontext, const Registers& at,
                               Registers* caller) {
    const uintptr_t bcp_register = read_interpreter_bcp(ucontext);
    if (entering_from_interpreter(thread, at, bcp_register, caller) ||
        entering_from_compiled_code(thread, at, bcp_register, caller)) {
        return InterpreterTop::kEntering;
    }
    if (returning_to_compiled_code(thread, at, bcp_register)) return InterpreterTop::kReturningToCompiledCode;
    return saved_bcp_usable(thread, at, bcp_register) ? InterpreterTop::kRunningOrSaved : InterpreterTop::kRunning;
}

}  // namespace top_frame
}  // namespace stackreq

#else
#error "stackreq: top_frame_x86_64.cpp is for x86_64 Linux; CMakeLists.txt picks *_<cpu>.cpp by CMAKE_SYSTEM_PROCESSOR"
#endif
