#if defined(__aarch64__) && defined(__linux__)

#include "native_unwind/native_libraries.h"
#include "native_unwind/unwind_arch.h"

namespace stackreq {

// DWARF for the Arm 64-bit Architecture (AArch64): x29 (fp) 29, x30 (lr) 30, sp 31; the CIEs
// GCC and glibc write name x30 as the return address column.
const CfiConventions kCfiConventions{
    29, 31, 30,
    true,   // bl leaves the return address in x30 until a prologue stores it (the rows say where)
    0,      // return_address_offset: no fixed place
    0,      // the CFA is sp itself at a function's entry
    false,  // return_address_only_at_offset
    false,  // cfa_expression_is_plt
    true,   // negate_ra_state_known
};

// xpaclri (a hint: a no-op on a CPU without pointer authentication, where nothing is signed)
// clears the authentication code of the pointer in x30, whatever the process's address size.
uintptr_t return_address_of(uintptr_t word) {
    register uintptr_t link asm("x30") = word;
    asm("hint #7" : "+r"(link));
    return link;
}

// Without rows, x29's frame record (the saved x29 and x30) would give a frame's caller's PC and
// fp but not its sp: a frame record may lie anywhere in its frame, and the caller's rows (GCC's
// keep the CFA on sp) need the sp exact. Rather than go on from a guessed sp the walk ends there,
// but for a leaf at the signal: hand-written leaves (libjvm's copy and atomic routines) touch
// neither x29, x30 nor sp, so their caller is at lr with their sp and fp. Taken only when lr
// returns into code that has rows: a function's own call would have left lr inside itself, and
// the signal's PC has none.
bool caller_without_rows(const StackBounds&, bool top, const Registers& registers, Registers* caller) {
    if (!top || registers.lr == 0) return false;
    const uintptr_t link = return_address_of(registers.lr);
    const CodeRange* range = NativeLibraries::find(link - 1);
    if (range == nullptr || UnwindTable::find(range->unwind, link - 1) == nullptr) return false;
    caller->pc = link;
    caller->sp = registers.sp;
    caller->fp = registers.fp;
    return true;
}

}  // namespace stackreq

#else
#error "stackreq: unwind_arch_aarch64.cpp is for aarch64 Linux; CMakeLists.txt picks *_<cpu>.cpp by CMAKE_SYSTEM_PROCESSOR"
#endif
