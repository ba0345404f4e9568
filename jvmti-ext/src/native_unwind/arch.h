// The architecture-specific part of the request path: reading and rewriting the registers of a
// signal's ucontext, decoding the frame setup of HotSpot's code, and the layout of HotSpot's
// frames (the constants below; walk/top_frame.h has the VMStructs walk's first frame). x86_64
// Linux is implemented in full (arch_x86_64.cpp); aarch64 Linux has the registers, the cycle
// counter, HotSpot's frames and the frame setup of compiled methods and of the leaf stubs it can
// decode (arch_aarch64.cpp) and the native unwinder's conventions and the signal frame
// (unwind_arch_aarch64.cpp), and
// the k...Known constants below say what it lacks: the agent
// refuses or falls back from the options that need it at load (agent/options.h,
// limit_to_architecture).
#pragma once

#include <ucontext.h>

#include <cstdint>

namespace stackreq {

#if defined(__x86_64__)
constexpr const char* kArchitecture = "x86_64";
// Whether stackreq's walks know HotSpot's frames on this architecture: the VMStructs walk
// (walker=vmstructs) and the physical walk that types the frames (physical_walk.h), with the
// frame layout below and the instruction sequences of the frame setup decoded further down.
constexpr bool kHotSpotFramesKnown = true;
// HotSpot's interpreted frame, in words from its frame pointer (the same on JDK 11 to 28): the
// Method* and the saved bytecode pointer; the last expression stack pointer, 0 while the frame
// runs its own bytecodes and set while it calls a method.
constexpr intptr_t kInterpreterMethodSlot = -3, kInterpreterBcpSlot = -8, kInterpreterLastSpSlot = -2;
// Whether the sender SP an interpreted frame saves (at fp - 1) lies above the frame: the x86_64
// interpreter's expression stack is the machine stack, so the caller's SP is above its callee.
constexpr bool kSenderSpAboveInterpretedFrame = true;
// The JavaCallWrapper* slot of the call stub's frame (an entry frame), in words from its fp.
constexpr intptr_t kCallWrapperSlot = -6;
// Whether a call leaves its return address on the stack (at the callee's SP on entry), so that
// a frame anchor without a PC has its frame's PC in the word below its SP.
constexpr bool kCallPushesReturnAddress = true;
// Whether HotSpot's stubs are known to build a frame record or none (stub_frame_setup_at), so that
// a walk failing in a stub may go on from the stub's caller (AsgctWalk's recovery).
constexpr bool kStubFramesKnown = true;
// Whether the native unwinder knows this architecture's call-frame conventions
// (native_unwind/unwind_arch.h: the DWARF register numbers, where the return address is): native=on.
constexpr bool kNativeUnwindKnown = true;
// Whether a handler's frame is known (unwind_arch.h's signal_context_in_frame; x86_64's
// rt_sigframe: the restorer's address at sp, the ucontext right above it): null-ucontext=signal,
// and a handler interrupted by a second signal.
constexpr bool kSignalFrameKnown = true;
// Whether a walk from C code while the thread is in Java (a signal handler's, such as JFR's thread
// suspension, or a leaf call's) starts at the context of the signal the handler runs for, when
// the unwind from the PC reaches a signal frame (AsgctWalk::context_below_handlers). Not on
// x86_64, where AsyncGetCallTrace walks such a sample as it always did.
constexpr bool kWalkBelowSignalHandlers = false;
#elif defined(__aarch64__)
constexpr const char* kArchitecture = "aarch64";
constexpr bool kHotSpotFramesKnown = true;
// One more slot than x86_64's between the Method* and the bytecode pointer: JDK 17 pads there
// to keep sp 16-byte aligned, JDK 21 and later keep the extended SP there; the rest is the same.
constexpr intptr_t kInterpreterMethodSlot = -3, kInterpreterBcpSlot = -9, kInterpreterLastSpSlot = -2;
// The interpreter's expression stack lies above the machine SP, and a callee's frame is built
// below the caller's expression stack: the sender SP saved (the caller's machine SP at the call)
// may lie below the callee's frame. The sender's frame starts above the callee's frame record.
constexpr bool kSenderSpAboveInterpretedFrame = false;
// The call stub saves x19-x28 and d8-d15 below its argument registers: the wrapper (x0) is lower.
constexpr intptr_t kCallWrapperSlot = -8;
// bl leaves the return address in x30: nothing below an anchor's SP says where its frame is.
constexpr bool kCallPushesReturnAddress = false;
// Decoded from the whole stub's instructions (stub_frame_setup_in): only the stubs whose frame
// record is certain at every PC are recovered, the others' walks keep failing.
constexpr bool kStubFramesKnown = true;
// unwind_arch_aarch64.cpp: x30 is the return address column, in lr until a prologue stores it.
constexpr bool kNativeUnwindKnown = true;
// The kernel's and qemu-user's rt_sigframe: the siginfo, then the ucontext at the handler's entry
// sp, the interrupted code's frame record above them at its x29 (unwind_arch_aarch64.cpp).
constexpr bool kSignalFrameKnown = true;
// Following the frame records out of a handler leads into the signal frame's record, which holds
// the interrupted code's x30, not its PC: AsyncGetCallTrace would go on from that stale return
// address (stacks cut short or with frames that were not there), so such a walk starts at the
// interrupted context, or fails when no signal frame is found.
constexpr bool kWalkBelowSignalHandlers = true;
#else
#error "stackreq: only x86_64 and aarch64 Linux are implemented"
#endif

struct Registers {
    uintptr_t pc;
    uintptr_t sp;
    uintptr_t fp;
    // aarch64: x30 as read_registers found it, for the native unwinder's signal frame (a leaf's
    // or a prologue's return address is still there); 0 on x86_64 and for every caller's
    // registers, where it is not known. write_registers leaves the context's x30 as it is.
    uintptr_t lr = 0;
};

Registers read_registers(const void* ucontext);
// The register HotSpot's template interpreter keeps the current bytecode pointer in (r13 on
// x86_64, x22 on aarch64).
uintptr_t read_interpreter_bcp(const void* ucontext);
// The register the interpreter passes the Method* it is entering in (rbx on x86_64, x12 on aarch64).
uintptr_t read_interpreter_method(const void* ucontext);
void write_registers(void* ucontext, const Registers& registers);

struct ThreadSlotView;

// How far the frame of the code at pc is set up, read from the instructions there. pc must lie
// in code known to be mapped: a stub (only the instruction at pc is read) or a compiled method's
// page (16 bytes from pc are read; CodePages::contains(pc, 16)).
enum class FrameSetup {
    kReturnAddressOnTop,  // x86_64, before `push rbp`, or after the frame is gone: the caller's PC is at sp
    // Only the frame record is there: the saved fp at sp, the caller's PC above it (x86_64: only rbp
    // is pushed; aarch64: `stp x29, x30, [sp, #-16]!` of a large frame, or its `ldp x29, x30, [sp], #16`).
    kSavedFpOnTop,
    // aarch64, before the frame record is stored or after it is loaded again: the caller's PC is in
    // x30 (lr); sp is the caller's, or below it by the bytes the instruction at pc says.
    kReturnAddressInLink,
    kBuilt,  // anywhere else: the frame is complete
    // aarch64 stubs only: the stub's own record (`stp x29, x30, [sp, #-16]!; mov x29, sp`) is built
    // and x29 still points at it; the caller's PC and fp are in that record.
    kRecordAtFramePointer,
    // aarch64 stubs only: the decode cannot say where the caller is (a stub that moves sp or x29
    // other than by that record, a PC after its teardown but not at its return): no retry.
    kUnknown,
};
// The registers of the caller of a frame that is not set up (setup, from the signal's pc): false
// when they are not readable (the words it reads must lie on thread's stack). Its PC is the
// return address minus 1, inside the call instruction, so the caller's line is the call's.
bool caller_of_unbuilt_frame(const void* ucontext, FrameSetup setup, const ThreadSlotView& thread, Registers* caller);
// HotSpot's x86_64 leaf stubs: `push rbp; mov rbp, rsp` ... `leave; ret` (only the instruction at pc
// is read; kBuilt is then a guess the walk checks). aarch64: the whole stub pc is in (StubCode) is
// decoded by stub_frame_setup_in; never kBuilt, kUnknown outside a known stub.
FrameSetup stub_frame_setup_at(uintptr_t pc);
#if defined(__aarch64__)
// aarch64: how far the frame of the stub occupying [start, end) is set up at pc, from all its
// instructions (a PC's position alone cannot tell a leaf stub that keeps the caller's x29 and
// x30 from one that built its record). Reads the whole range; kUnknown past kMaxDecodedStubBytes.
constexpr uintptr_t kMaxDecodedStubBytes = 8192;
FrameSetup stub_frame_setup_in(uintptr_t pc, uintptr_t start, uintptr_t end);
#endif
// The caller of a stub (StubCode) at a return address one of its calls left
// (at_return.pc, the instruction before it a bl or blr), with at_return.sp and .fp the stub's
// sp and x29 at that PC: a stub that calls a copy-loop stub (the arraycopy stubs call JDK 17's
// forward_copy_longs, JDK 25's copy_byte_f with bl) is the caller of the stub a signal came in.
// Only where the decode places the stub's record at x29 at that PC (kRecordAtFramePointer) and
// x29 is sp, as from its enter() to its leave(); *caller's pc is the return address in the record
// (not minus 1). False otherwise, and always on x86_64, whose stubs call no other stub (its copy
// loops are inline). Reads the stub's code and two words at x29 on thread's stack.
bool caller_of_calling_stub(const ThreadSlotView& thread, const Registers& at_return, Registers* caller);
// HotSpot's x86_64 compiled methods: `[stack bang;] push rbp; [mov rbp, rsp;] sub rsp, N` ...
// `add rsp, N; pop rbp; [cmp rsp, poll word; ja slow path;] ret` (JDK 11: `[mov r10, poll page
// word; test eax, [r10];] ret`). aarch64 (build_frame and
// remove_frame of macroAssembler_aarch64.cpp): `[nop;] [sub x9, sp, #bang; str xzr, [x9];]
// sub sp, sp, #N; stp x29, x30, [sp, #N-16]` ... `ldp x29, x30, [sp, #N-16]; add sp, sp, #N;
// [ldr x8, [x28, #poll word]; cmp sp, x8; b.hi slow path;] ret`, frames of 528 bytes or more with
// the frame record pushed first (`stp x29, x30, [sp, #-16]!`) and popped last.
FrameSetup compiled_frame_setup_at(uintptr_t pc);
// x86_64: C2's out-of-line return poll (after the method's body, where a return whose poll fired jumps
// with the frame already popped and the return address on top): `lea r10, [rip + d32]; mov [r15 +
// d32], r10; jmp <handler>` (rel32, or `mov r10, imm64; jmp r10`). 16 bytes from pc are read, and
// when bytes_before the kPollBytesBefore bytes before pc too (for a PC past its first instruction).
constexpr uintptr_t kPollBytesBefore = 24;
// Not decoded on aarch64 yet (no PC reads as one).
bool in_return_poll_stub(uintptr_t pc, bool bytes_before);

// A cheap, monotonic cycle counter for latency=: the TSC on x86_64 (about 12 ns to read in
// these VMs, where clock_gettime costs 30-80 ns), the virtual counter cntvct_el0 on aarch64 (a
// fixed frequency, often 24-100 MHz, so one tick is 10-40 ns). Async-signal-safe.
uint64_t cycle_counter();

// Size of the ucontext copy the walker rewrites.
constexpr unsigned kUcontextSize = sizeof(ucontext_t);

}  // namespace stackreq
