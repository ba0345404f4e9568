#if defined(__aarch64__) && defined(__linux__)

#include <ucontext.h>

#include "walk/top_frame.h"

#include "walk/physical_walk.h"

namespace stackreq {
namespace top_frame {

namespace {

constexpr uintptr_t kWord = sizeof(uintptr_t);
constexpr int kLinkRegister = 30;

uintptr_t link_register(const void* ucontext) {
    return static_cast<uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.regs[kLinkRegister]);
}

// The interpreter builds a frame's fixed part with sp exactly this far below its new fp (the
// frame record at sp + 10 words), and moves sp below it only once the slots are stored; before
// that the last-SP and sender-SP slots may still hold an older frame's words.
constexpr uintptr_t kFixedFrameBytes = 10 * kWord;

// The interpreter's return entry starts by reloading the expression stack pointer from the
// last-SP slot and clearing it: until then the slot says "in a call" with the callee gone.
constexpr uintptr_t kReturnEntryBytes = 8;

}  // namespace

// caller_of_unbuilt_frame takes the return address minus 1 (the call's line for AsyncGetCallTrace);
// the VMStructs walk keeps return addresses, which the emitter looks up as the JVM records them.
// ucontext's registers are at's.
bool caller_of_unbuilt(const ThreadSlotView& thread, const void* ucontext, const Registers&, FrameSetup setup,
                       Registers* out) {
    if (ucontext == nullptr || !caller_of_unbuilt_frame(ucontext, setup, thread, out)) return false;
    out->pc += 1;
    return true;
}

FrameSetup setup_at_call() { return FrameSetup::kReturnAddressInLink; }

// bl leaves the return address in x30 and sp as it was; frameless code touches neither.
bool caller_at_call(const ThreadSlotView& thread, const void* ucontext, const Registers& at, Registers* out) {
    if (ucontext == nullptr || !thread.holds(at.sp, kWord)) return false;
    const uintptr_t link = link_register(ucontext);
    if (link == 0) return false;
    *out = Registers{link, at.sp, at.fp};
    return true;
}

// The whole stub is decoded (stub_frame_setup_in): every setup it answers is exact, none a guess.
// A stub whose caller is another stub (a copy loop the arraycopy stubs call with bl) is placed on
// that stub, and that stub on its compiled caller where its record is certain at the return
// address (caller_of_calling_stub): two stubs at most, as HotSpot nests them.
bool caller_of_stub(const ThreadSlotView& thread, const void* ucontext, const Registers& at, Registers* out) {
    const FrameSetup setup = stub_frame_setup_at(at.pc);
    if (setup == FrameSetup::kUnknown || !caller_of_unbuilt(thread, ucontext, at, setup, out)) return false;
    if (in_compiled_code(out->pc)) return true;
    const Registers in_calling_stub = *out;
    return caller_of_calling_stub(thread, in_calling_stub, out) && in_compiled_code(out->pc);
}

// The sender SP the adapter's caller leaves is in x13 on JDK 17 and x19 on JDK 21 and later, and
// nothing here says which: not decoded.
bool caller_of_adapter(const ThreadSlotView&, const void*, const Registers&, Registers*) { return false; }

// The frame at x29 is the running method's when it is not in a call (last SP 0), its fixed part
// is complete and its Method* is the one in the Method* register (x12). It is the caller of a
// method being entered when it is in a call and x30 is the return address the call left: the
// interpreter's return entry its invoke loaded (an interpreted caller; a compiled one's x29 need
// not be a frame, and its SP is in a register that depends on the JDK), the PC not at that entry's
// first instructions (there the callee has returned), or the call stub's return (a call from the
// VM, x29 the call stub's frame). Anything else (the frame being built or popped, x12 holding
// another method) is not told apart.
InterpreterTop interpreter_top(const ThreadSlotView& thread, const void* ucontext, const Registers& at,
                               Registers* caller) {
    const uintptr_t fp = at.fp;
    const intptr_t lowest = kInterpreterBcpSlot < kInterpreterLastSpSlot ? kInterpreterBcpSlot : kInterpreterLastSpSlot;
    if (fp <= at.sp + kFixedFrameBytes || fp % kWord != 0 ||
        !thread.holds(fp + lowest * static_cast<intptr_t>(kWord), static_cast<uintptr_t>(2 - lowest) * kWord)) {
        return InterpreterTop::kUnknown;
    }
    const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(fp);
    const uintptr_t last_sp = frame[kInterpreterLastSpSlot];
    if (last_sp == 0) {
        if (frame[kInterpreterMethodSlot] != read_interpreter_method(ucontext)) return InterpreterTop::kUnknown;
        const uintptr_t bcp_register = read_interpreter_bcp(ucontext);
        const bool register_on_stack = bcp_register >= at.sp && bcp_register < thread.stack_high;
        return register_on_stack ? InterpreterTop::kRunning : InterpreterTop::kRunningOrSaved;
    }
    const uintptr_t link = link_register(ucontext);
    const bool from_interpreter =
        PhysicalWalk::in_interpreter(link) && !(at.pc >= link && at.pc - link < kReturnEntryBytes);
    if (!from_interpreter && !PhysicalWalk::is_call_stub_return(link)) return InterpreterTop::kUnknown;
    *caller = Registers{link, at.sp, fp};
    return InterpreterTop::kEntering;
}

}  // namespace top_frame
}  // namespace stackreq

#else
#error "stackreq: top_frame_aarch64.cpp is for aarch64 Linux; CMakeLists.txt picks *_<cpu>.cpp by CMAKE_SYSTEM_PROCESSOR"
#endif
