// What the native unwinder (native_unwind.h) and its row builder (eh_frame.h) must know of the
// target's calling convention, one file per architecture (unwind_arch_x86_64.cpp,
// unwind_arch_aarch64.cpp; CMake compiles the target's): the DWARF numbers of the registers the
// rows follow, where a function's return address is when its CIE says nothing of it, and how to
// step past a frame whose code has no rows. Async-signal-safe where the handler calls it.
#pragma once

#include <cstdint>

#include "native_unwind/arch.h"
#include "native_unwind/native_unwind.h"

namespace stackreq {

struct CfiConventions {
    uint64_t fp_register;  // DWARF register numbers
    uint64_t sp_register;
    uint64_t return_address_column;
    // Where the return address is before any rule names its column: x86_64's call pushed it at
    // CFA - 8 (return_address_offset); aarch64's bl left it in x30, the column's own register
    // (return_address_in_register).
    bool return_address_in_register;
    int16_t return_address_offset;
    // CFA = sp + entry_cfa_offset at a function's entry (a CIE normally says so itself): the sp
    // before the call, 8 above the pushed return address on x86_64, sp itself on aarch64.
    int64_t entry_cfa_offset;
    // Whether only return_address_offset may hold the return address: x86_64's call always puts
    // it there, so a row saying otherwise is not understood and left out.
    bool return_address_only_at_offset;
    // DW_CFA_def_cfa_expression: x86_64's PLT entries (the return address at sp, 8 more after the
    // lazy-binding push) are taken as their common case, CFA = sp + 8; elsewhere the row is left out.
    bool cfa_expression_is_plt;
    // DW_CFA_AARCH64_negate_ra_state (0x2d, SPARC's window_save elsewhere): aarch64's pointer
    // authentication toggles whether the saved return address is signed; the unwinder strips the
    // signature from every return address it reads (return_address_of), so the opcode changes no row.
    bool negate_ra_state_known;
};

extern const CfiConventions kCfiConventions;

// Reads the aligned word at address inside stack's bounds; false outside them (or, through the
// kernel, where it is not mapped). The same on every target (native_unwind.cpp).
bool read_stack_word(const StackBounds& stack, uintptr_t address, uintptr_t* out);

// A return address as code: aarch64 strips a pointer authentication code from the bits above the
// virtual address; x86_64 returns it unchanged.
uintptr_t return_address_of(uintptr_t word);

// The caller of a frame whose code has no rows (hand-written assembly, code built without unwind
// tables), or false when it cannot be told. top: registers are the signal's (lr is the link
// register then; 0 above the first frame).
bool caller_without_rows(const StackBounds& stack, bool top, const Registers& registers, Registers* caller);

// The signal frame (native_unwind.h's signal_frame_above, walk/asgct_walk.h). Normal context, once
// at load: the address a handler returns to, the signal trampoline (x86_64: glibc's sa_restorer;
// aarch64: the vDSO's __kernel_rt_sigreturn, or qemu-user's own trampoline page); 0 when unknown.
uintptr_t find_signal_trampoline();
// The ucontext the kernel saved for a handler, from the registers of the handler's caller as the
// rows give them, its PC the trampoline (x86_64: sp just above the return address is the
// ucontext; aarch64: sp is the handler's entry sp, the siginfo then the ucontext, and fp is x29 at
// its entry, the frame record the kernel stored above them); 0 when what is there is not a signal
// frame. Reads only inside stack.
uintptr_t signal_context_in_frame(const StackBounds& stack, const Registers& returning_to_trampoline);
// The same at a handler's first instruction (two signals delivered at once: one handler's context
// is the other's entry), from that context's registers: x86_64, the trampoline at sp; aarch64, in
// x30 with sp and x29 as the kernel set them. 0 elsewhere.
uintptr_t signal_context_at_handler_entry(const StackBounds& stack, const Registers& registers, uintptr_t trampoline);

}  // namespace stackreq
