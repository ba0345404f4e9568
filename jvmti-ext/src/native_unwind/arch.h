// The only architecture-specific part of the request path: reading and rewriting the
// registers of a signal's ucontext. x86_64 Linux is implemented (arch_x86_64.cpp).
#pragma once

#include <ucontext.h>

#include <cstdint>

namespace stackreq {

struct Registers {
    uintptr_t pc;
    uintptr_t sp;
    uintptr_t fp;
};

Registers read_registers(const void* ucontext);
// The register HotSpot's template interpreter keeps the current bytecode pointer in (r13).
uintptr_t read_interpreter_bcp(const void* ucontext);
// The register the interpreter passes the Method* it is entering in (rbx).
uintptr_t read_interpreter_method(const void* ucontext);
void write_registers(void* ucontext, const Registers& registers);

// How far the frame of the code at pc is set up, read from the instructions there. pc must lie
// in code known to be mapped: a stub (only the instruction at pc is read) or a compiled method's
// page (16 bytes from pc are read; CodePages::contains(pc, 16)).
enum class FrameSetup {
    kReturnAddressOnTop,  // before `push rbp`, or after the frame is gone: the caller's PC is at sp
    kSavedFpOnTop,        // only rbp is pushed: the saved fp at sp, the caller's PC above it
    kBuilt,               // anywhere else: the frame is complete
};
// HotSpot's x86_64 leaf stubs: `push rbp; mov rbp, rsp` ... `leave; ret`.
FrameSetup stub_frame_setup_at(uintptr_t pc);
// HotSpot's x86_64 compiled methods: `[stack bang;] push rbp; [mov rbp, rsp;] sub rsp, N` ...
// `add rsp, N; pop rbp; [cmp rsp, poll word; ja slow path;] ret`.
FrameSetup compiled_frame_setup_at(uintptr_t pc);
// C2's out-of-line return poll (after the method's body, where a return whose poll fired jumps
// with the frame already popped and the return address on top): `lea r10, [rip + d32]; mov [r15 +
// d32], r10; jmp <handler>` (rel32, or `mov r10, imm64; jmp r10`). 16 bytes from pc are read, and
// when bytes_before the kPollBytesBefore bytes before pc too (for a PC past its first instruction).
constexpr uintptr_t kPollBytesBefore = 24;
bool in_return_poll_stub(uintptr_t pc, bool bytes_before);

// A cheap, monotonic cycle counter for latency=: the TSC on x86_64 (about 12 ns to read in
// these VMs, where clock_gettime costs 30-80 ns). Async-signal-safe.
uint64_t cycle_counter();

// Size of the ucontext copy the walker rewrites.
constexpr unsigned kUcontextSize = sizeof(ucontext_t);

}  // namespace stackreq
