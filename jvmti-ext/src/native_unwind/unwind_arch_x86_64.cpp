#if defined(__x86_64__) && defined(__linux__)

#include <signal.h>

#include "native_unwind/native_libraries.h"
#include "native_unwind/unwind_arch.h"

namespace stackreq {

// System V psABI (x86_64), figure 3.36: rbp 6, rsp 7, the return address column 16.
const CfiConventions kCfiConventions{
    6, 7, 16,
    false,  // call pushes the return address:
    -8,     // at CFA - 8, always (return_address_only_at_offset)
    8,      // the CFA is sp + 8 at a function's entry
    true,   // return_address_only_at_offset
    true,   // cfa_expression_is_plt
    false,  // negate_ra_state_known: 0x2d is not x86_64's
};

uintptr_t return_address_of(uintptr_t word) { return word; }

bool caller_without_rows(const StackBounds& stack, bool top, const Registers& registers, Registers* caller) {
    if (top && read_stack_word(stack, registers.sp, &caller->pc) && caller->pc != 0 &&
        NativeLibraries::find(caller->pc - 1) != nullptr) {
        // Hand-written assembly (libjvm's copy routines) is mostly a leaf that pushes nothing, its
        // return address at sp; the frame pointer would still be its caller's, and following it
        // would drop that caller. Taken only when the word at sp is an address in a loaded
        // object's code.
        caller->sp = registers.sp + sizeof(uintptr_t);
        caller->fp = registers.fp;
        return true;
    }
    // Elsewhere the frame pointer chain, as code built with frame pointers keeps it: push rbp
    // right after the call, so the caller's sp is just above the saved rbp and return address.
    if (registers.fp < registers.sp || !read_stack_word(stack, registers.fp, &caller->fp) ||
        !read_stack_word(stack, registers.fp + sizeof(uintptr_t), &caller->pc)) {
        return false;
    }
    caller->sp = registers.fp + 2 * sizeof(uintptr_t);
    return true;
}

// glibc's signal-return trampoline, the return address of every handler frame the kernel builds
// for a handler installed through glibc's sigaction: a throw-away handler on an unused real-time
// signal shows it, then the previous action is put back. At agent load, before any other thread.
uintptr_t find_signal_trampoline() {
    struct sigaction probe {}, previous {}, installed {};
    probe.sa_handler = SIG_IGN;
    int signal_number = SIGRTMAX;
    if (sigaction(signal_number, &probe, &previous) != 0) return 0;
    probe.sa_handler = [](int) {};
    sigaction(signal_number, &probe, nullptr);
    sigaction(signal_number, &previous, &installed);
    return reinterpret_cast<uintptr_t>(installed.sa_restorer);
}

// rt_sigframe: the return address (pretcode), then the ucontext: the handler's caller's sp is the
// ucontext itself.
uintptr_t signal_context_in_frame(const StackBounds&, const Registers& returning_to_trampoline) {
    return returning_to_trampoline.sp;
}

uintptr_t signal_context_at_handler_entry(const StackBounds& stack, const Registers& registers, uintptr_t trampoline) {
    const uintptr_t bytes = sizeof(uintptr_t) + kUcontextSize;
    if (trampoline == 0 || registers.sp % sizeof(uintptr_t) != 0 || registers.sp < stack.low ||
        registers.sp + bytes > stack.high || registers.sp + bytes <= registers.sp) {
        return 0;
    }
    uintptr_t word = 0;
    if (!read_stack_word(stack, registers.sp, &word) || word != trampoline) return 0;
    return registers.sp + sizeof(uintptr_t);
}

}  // namespace stackreq

#else
#error "stackreq: unwind_arch_x86_64.cpp is for x86_64 Linux; CMakeLists.txt picks *_<cpu>.cpp by CMAKE_SYSTEM_PROCESSOR"
#endif
