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
void write_registers(void* ucontext, const Registers& registers);

// A cheap, monotonic cycle counter for latency=: the TSC on x86_64 (about 12 ns to read in
// these VMs, where clock_gettime costs 30-80 ns). Async-signal-safe.
uint64_t cycle_counter();

// Size of the ucontext copy the walker rewrites.
constexpr unsigned kUcontextSize = sizeof(ucontext_t);

}  // namespace stackreq
