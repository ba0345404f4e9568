#if defined(__aarch64__) && defined(__linux__)

#include <signal.h>
#include <ucontext.h>

#include <cstddef>

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

namespace {

volatile uintptr_t g_probed_return = 0;

void record_return_address(int, siginfo_t*, void*) {
    g_probed_return = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}

// The kernel's rt_sigframe (arch/arm64/kernel/signal.c), and qemu-user's (linux-user/aarch64/
// signal.c): at the sp a handler is entered with, the siginfo, then the ucontext, whose mcontext's
// reserved space starts with the FP/SIMD record (FPSIMD_MAGIC of the uapi asm/sigcontext.h, 528
// bytes). Above them a frame record {x29, x30} of the interrupted code, which x29 points to at the
// handler's entry: the kernel puts it just below the interrupted sp, qemu right above the
// sigframe; either way between the ucontext's end and the interrupted sp, unless the handler runs
// on an alternate signal stack (then it is not taken).
constexpr uintptr_t kSiginfoBytes = 128;
constexpr uint64_t kFpsimdRecordHead = (uint64_t{528} << 32) | 0x46508001;
constexpr uintptr_t kWord = sizeof(uintptr_t);

// Whether a handler for signal_number, installed only for the probe (the previous action put back),
// ran when the signal was raised at this thread (delivered before raise returns): false too for a
// signal in use (not the default action).
bool probe_with(int signal_number) {
    struct sigaction probe {}, previous {};
    probe.sa_sigaction = record_return_address;
    probe.sa_flags = SA_SIGINFO;
    sigemptyset(&probe.sa_mask);
    if (sigaction(signal_number, &probe, &previous) != 0) return false;
    if ((previous.sa_flags & SA_SIGINFO) != 0 || previous.sa_handler != SIG_DFL) {
        sigaction(signal_number, &previous, nullptr);
        return false;
    }
    sigset_t only{}, before{};
    sigemptyset(&only);
    sigaddset(&only, signal_number);
    g_probed_return = 0;
    pthread_sigmask(SIG_UNBLOCK, &only, &before);
    raise(signal_number);
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    sigaction(signal_number, &previous, nullptr);
    return g_probed_return != 0;
}

}  // namespace

// x30 at a handler's entry is where it returns: the vDSO's __kernel_rt_sigreturn, or under qemu's
// user-mode emulation (no vDSO) a trampoline page of qemu's own, both `mov x8, #139; svc #0`
// (rt_sigreturn). No sigaction field says which, so a handler run once shows it, on an unused
// real-time signal from SIGRTMAX down: qemu 7.2 takes handlers for 63 and 64 but never delivers
// them (it has no host signal left for them). At agent load, before any other thread.
uintptr_t find_signal_trampoline() {
    constexpr int kCandidates = 8;
    for (int signal_number = SIGRTMAX; signal_number > SIGRTMAX - kCandidates; signal_number--) {
        if (probe_with(signal_number)) return return_address_of(g_probed_return);
    }
    return 0;
}

// Taken only when the words agree as only a signal frame's do: the record holds the ucontext's
// x29 and x30, lies between the ucontext and its sp, and the FP/SIMD record comes first.
uintptr_t signal_context_in_frame(const StackBounds& stack, const Registers& returning_to_trampoline) {
    const uintptr_t frame = returning_to_trampoline.sp, record = returning_to_trampoline.fp;
    const uintptr_t context = frame + kSiginfoBytes;
    if (frame % 16 != 0 || record % 16 != 0 || frame < stack.low || record < context + kUcontextSize) return 0;
    const auto register_at = [context](int number) {
        return context + offsetof(ucontext_t, uc_mcontext.regs) + static_cast<uintptr_t>(number) * kWord;
    };
    uintptr_t saved_fp = 0, saved_lr = 0, fp = 0, lr = 0, sp = 0, pc = 0, first_record = 0;
    if (!read_stack_word(stack, record, &saved_fp) || !read_stack_word(stack, record + kWord, &saved_lr) ||
        !read_stack_word(stack, register_at(29), &fp) || !read_stack_word(stack, register_at(30), &lr) ||
        !read_stack_word(stack, context + offsetof(ucontext_t, uc_mcontext.sp), &sp) ||
        !read_stack_word(stack, context + offsetof(ucontext_t, uc_mcontext.pc), &pc) ||
        !read_stack_word(stack, context + offsetof(ucontext_t, uc_mcontext.__reserved), &first_record)) {
        return 0;
    }
    const bool agree = saved_fp == fp && saved_lr == lr && sp >= record + 2 * kWord && pc != 0 &&
                       first_record == kFpsimdRecordHead;
    return agree ? context : 0;
}

// At a handler's first instruction the kernel's registers are still there: x30 the trampoline,
// sp the frame, x29 the record.
uintptr_t signal_context_at_handler_entry(const StackBounds& stack, const Registers& registers, uintptr_t trampoline) {
    if (trampoline == 0 || registers.lr == 0 || return_address_of(registers.lr) != trampoline) return 0;
    return signal_context_in_frame(stack, registers);
}

}  // namespace stackreq

#else
#error "stackreq: unwind_arch_aarch64.cpp is for aarch64 Linux; CMakeLists.txt picks *_<cpu>.cpp by CMAKE_SYSTEM_PROCESSOR"
#endif
