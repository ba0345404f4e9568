#if defined(__x86_64__) && defined(__linux__)

#include <ucontext.h>
#include <x86intrin.h>

#include "arch.h"

namespace stackreq {

Registers read_registers(const void* ucontext) {
    const mcontext_t& m = static_cast<const ucontext_t*>(ucontext)->uc_mcontext;
    return Registers{static_cast<uintptr_t>(m.gregs[REG_RIP]), static_cast<uintptr_t>(m.gregs[REG_RSP]),
                     static_cast<uintptr_t>(m.gregs[REG_RBP])};
}

uint64_t cycle_counter() { return __rdtsc(); }

void write_registers(void* ucontext, const Registers& registers) {
    mcontext_t& m = static_cast<ucontext_t*>(ucontext)->uc_mcontext;
    m.gregs[REG_RIP] = static_cast<greg_t>(registers.pc);
    m.gregs[REG_RSP] = static_cast<greg_t>(registers.sp);
    m.gregs[REG_RBP] = static_cast<greg_t>(registers.fp);
}

}  // namespace stackreq

#else
#error "stackreq: only x86_64 Linux is implemented; add arch_<cpu>.cpp for this target"
#endif
