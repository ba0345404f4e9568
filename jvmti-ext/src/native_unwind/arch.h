// The only architecture-specific part of the request path: reading and rewriting the
// registers of a signal's ucontext, and decoding the frame setup of HotSpot's code. x86_64 Linux
// is implemented in full (arch_x86_64.cpp); aarch64 Linux has the registers and the cycle counter
// (arch_aarch64.cpp), and the k...Known constants below say what it lacks: the agent refuses or
// falls back from the options that need it at load (agent/options.h, limit_to_architecture).
#pragma once

#include <ucontext.h>

#include <cstdint>

namespace stackreq {

#if defined(__x86_64__)
constexpr const char* kArchitecture = "x86_64";
// Whether stackreq's walks know HotSpot's frames on this architecture: the VMStructs walk
// (walker=vmstructs) and the physical walk that types the frames (physical_walk.h) were written
// from frame_x86.hpp and check the x86_64 instruction sequences of the frame setup below.
constexpr bool kHotSpotFramesKnown = true;
// Whether stub_frame_setup_at, compiled_frame_setup_at and in_return_poll_stub decode this
// architecture's instructions, and a frame that is not set up has its caller's PC on the stack.
constexpr bool kFrameSetupKnown = true;
// Whether the native unwinder's rules (eh_frame.h: the DWARF register numbers, the return
// address at CFA - 8) are this architecture's: native=on.
constexpr bool kNativeUnwindKnown = true;
// Whether a handler's frame is the x86_64 rt_sigframe: the restorer's address at sp, the
// ucontext right above it (null-ucontext=signal, and a handler interrupted by a second signal).
constexpr bool kSignalFrameKnown = true;
#elif defined(__aarch64__)
constexpr const char* kArchitecture = "aarch64";
constexpr bool kHotSpotFramesKnown = false;
constexpr bool kFrameSetupKnown = false;
constexpr bool kNativeUnwindKnown = false;
constexpr bool kSignalFrameKnown = false;
#else
#error "stackreq: only x86_64 and aarch64 Linux are implemented"
#endif

struct Registers {
    uintptr_t pc;
    uintptr_t sp;
    uintptr_t fp;
};

Registers read_registers(const void* ucontext);
// The register HotSpot's template interpreter keeps the current bytecode pointer in (r13 on
// x86_64, x22 on aarch64).
uintptr_t read_interpreter_bcp(const void* ucontext);
// The register the interpreter passes the Method* it is entering in (rbx on x86_64, x12 on aarch64).
uintptr_t read_interpreter_method(const void* ucontext);
void write_registers(void* ucontext, const Registers& registers);

// How far the frame of the code at pc is set up, read from the instructions there (where
// kFrameSetupKnown; elsewhere every frame reads as kBuilt and no PC as a poll stub). pc must lie
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
// these VMs, where clock_gettime costs 30-80 ns), the virtual counter cntvct_el0 on aarch64 (a
// fixed frequency, often 24-100 MHz, so one tick is 10-40 ns). Async-signal-safe.
uint64_t cycle_counter();

// Size of the ucontext copy the walker rewrites.
constexpr unsigned kUcontextSize = sizeof(ucontext_t);

}  // namespace stackreq
