#if defined(__aarch64__) && defined(__linux__)

#include <ucontext.h>

#include "native_unwind/arch.h"

namespace stackreq {

namespace {

// AAPCS64: x29 is the frame pointer (HotSpot's rfp). The template interpreter's fixed registers
// (register_aarch64.hpp, interp_masm_aarch64.hpp): rmethod = x12, rbcp = x22.
constexpr int kFramePointer = 29;
constexpr int kInterpreterMethod = 12;
constexpr int kInterpreterBcp = 22;

}  // namespace

Registers read_registers(const void* ucontext) {
    const mcontext_t& m = static_cast<const ucontext_t*>(ucontext)->uc_mcontext;
    return Registers{static_cast<uintptr_t>(m.pc), static_cast<uintptr_t>(m.sp),
                     static_cast<uintptr_t>(m.regs[kFramePointer])};
}

uintptr_t read_interpreter_bcp(const void* ucontext) {
    return static_cast<uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.regs[kInterpreterBcp]);
}

uintptr_t read_interpreter_method(const void* ucontext) {
    return static_cast<uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.regs[kInterpreterMethod]);
}

// No isb before the read, as no fence goes with x86_64's rdtsc: a latency is many ticks long,
// and a barrier would cost as much as the walk of a short stack.
uint64_t cycle_counter() {
    uint64_t ticks;
    asm volatile("mrs %0, cntvct_el0" : "=r"(ticks));
    return ticks;
}

// HotSpot's aarch64 frames are set up with `stp x29, x30, [sp, #-16]!; mov x29, sp` (or a store
// pair at the top of a frame already allocated), and until then the caller's PC is in x30, not on
// the stack; none of it is decoded yet (kFrameSetupKnown is false, and the walks that would need
// it are off on aarch64), so every frame reads as built, as AsyncGetCallTrace itself takes it.
FrameSetup stub_frame_setup_at(uintptr_t) { return FrameSetup::kBuilt; }

FrameSetup compiled_frame_setup_at(uintptr_t) { return FrameSetup::kBuilt; }

bool in_return_poll_stub(uintptr_t, bool) { return false; }

void write_registers(void* ucontext, const Registers& registers) {
    mcontext_t& m = static_cast<ucontext_t*>(ucontext)->uc_mcontext;
    m.pc = registers.pc;
    m.sp = registers.sp;
    m.regs[kFramePointer] = registers.fp;
}

}  // namespace stackreq

#else
#error "stackreq: arch_aarch64.cpp is for aarch64 Linux; CMakeLists.txt picks arch_<cpu>.cpp by CMAKE_SYSTEM_PROCESSOR"
#endif
