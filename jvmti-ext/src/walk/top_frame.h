// The VMStructs walk's first frame where the signal's registers are not a built Java frame's:
// where the caller of code whose frame is not there is, and what the interpreter is doing. That
// depends on the architecture (a call pushes its return address on x86_64 and leaves it in x30
// on aarch64; the interpreter's registers and frame building differ), so each has its own file,
// top_frame_<cpu>.cpp. Every function is async-signal-safe and reads only the thread's stack,
// the code heaps and the signal's ucontext; ucontext is null where the registers are not the
// signal's (a frame the native unwinder reached), and what needs it is then not known.
#pragma once

#include <cstdint>

#include "hotspot/stub_code.h"
#include "native_unwind/arch.h"
#include "request/thread_registry.h"

namespace stackreq {
namespace top_frame {

// Whether a return address lies in a compiled method's code the walk can size (vmstructs_walk.cpp).
bool in_compiled_code(uintptr_t pc);

// The caller of a compiled method at at.pc whose frame is not set up (setup, from its code), at
// the call's return address; false when its words are not readable.
bool caller_of_unbuilt(const ThreadSlotView& thread, const void* ucontext, const Registers& at, FrameSetup setup,
                       Registers* out);
// The frame setup of a compiled method at a PC before its verified entry, or in its return poll
// stub: the caller's PC is where a call left it.
FrameSetup setup_at_call();
// The caller's registers between its call and the callee's first instruction (frameless code:
// a vtable, itable or inline-cache stub, a method handle intrinsic), the return address as its PC.
bool caller_at_call(const ThreadSlotView& thread, const void* ucontext, const Registers& at, Registers* out);
// The compiled caller of the leaf stub at at.pc; false when none is found.
bool caller_of_stub(const ThreadSlotView& thread, const void* ucontext, const Registers& at, Registers* out);
// The caller of an adapter (StubCode::Frameless::kAdapters) the interpreter jumped to; false when
// the registers do not show it.
bool caller_of_adapter(const ThreadSlotView& thread, const void* ucontext, const Registers& at, Registers* out);

// What the interpreter is doing at a signal whose PC is in it.
enum class InterpreterTop {
    kRunning,          // the frame at fp is the method running, at the bytecode pointer register
    kRunningOrSaved,   // the same, or at the frame's saved bytecode pointer (TopInterpreted::kRegisterOrSaved)
    kEntering,         // entering the method in the Method* register, its frame not built; *caller is its caller
    kReturningToCompiledCode,  // the method returned, its frame removed, and the jump to a compiled caller not
                               // made: the frame pointer is that caller's, not a frame (x86_64)
    kUnknown,          // neither can be told: the walk leaves the request to AsyncGetCallTrace
};
InterpreterTop interpreter_top(const ThreadSlotView& thread, const void* ucontext, const Registers& at,
                               Registers* caller);

}  // namespace top_frame
}  // namespace stackreq
