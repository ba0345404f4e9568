#if defined(__aarch64__) && defined(__linux__)

#include <ucontext.h>

#include <cstring>

#include "native_unwind/arch.h"
#include "request/thread_registry.h"

namespace stackreq {

namespace {

// AAPCS64: x29 is the frame pointer (HotSpot's rfp). The template interpreter's fixed registers
// (register_aarch64.hpp, interp_masm_aarch64.hpp): rmethod = x12, rbcp = x22.
constexpr int kFramePointer = 29;
constexpr int kLinkRegister = 30;
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

namespace {

// The instructions of HotSpot's frame setup and teardown (macroAssembler_aarch64.cpp: build_frame,
// remove_frame, bang_stack_with_offset, safepoint_poll at a return), each as its fixed bits under
// a mask that leaves out its immediate; x9 is rscratch2, x8 rscratch1, x28 rthread.
constexpr uint32_t kNop = 0xd503201f, kRet = 0xd65f03c0;
constexpr uint32_t kImmediateMask = 0xff8003ff;                  // add/sub (immediate), 64-bit: imm12 and its shift out
bool is_sub_sp_sp(uint32_t i) { return (i & kImmediateMask) == 0xd10003ff; }    // sub sp, sp, #N
bool is_add_sp_sp(uint32_t i) { return (i & kImmediateMask) == 0x910003ff; }    // add sp, sp, #N
bool is_bang_address(uint32_t i) { return (i & kImmediateMask) == 0xd10003e9; } // sub x9, sp, #N
bool is_bang_store(uint32_t i) { return i == 0xf900013f; }                      // str xzr, [x9]
bool is_mov_fp_sp(uint32_t i) { return i == 0x910003fd; }                       // mov x29, sp
bool is_sub_sp_sp_register(uint32_t i) { return i == 0xcb2863ff; }              // sub sp, sp, x8
constexpr uint32_t kPairOffsetMask = 0xffc07fff;                 // ldp/stp (signed offset): imm7 out
bool is_store_record(uint32_t i) { return (i & kPairOffsetMask) == 0xa9007bfd; }  // stp x29, x30, [sp, #M]
bool is_push_record(uint32_t i) { return i == 0xa9bf7bfd; }                      // stp x29, x30, [sp, #-16]!
bool is_pop_record(uint32_t i) { return i == 0xa8c17bfd; }                       // ldp x29, x30, [sp], #16
bool is_poll_load(uint32_t i) { return (i & 0xffc003ff) == 0xf9400388; }         // ldr x8, [x28, #M]
bool is_poll_compare(uint32_t i) { return i == 0xeb2863ff; }                     // cmp sp, x8
bool is_branch_if_higher(uint32_t i) { return (i & 0xff00001f) == 0x54000008; }  // b.hi
// The unverified entry's inline cache check (cmp_klass of the receiver x1 with the expected klass
// in x9): `ldr w8, [x1, #8]; [decode;] cmp x9, x8 (or w9, w8, or x9, x8, lsl #3); b.eq verified
// entry`; x8 and x9 are not allocatable, so a compiled body has no such compare of its own.
bool is_klass_compare(uint32_t i) { return (i & 0x7f3f03ff) == 0x6b08013f; }
bool is_branch_if_equal(uint32_t i) { return (i & 0xff00001f) == 0x54000000; }

uint64_t add_sub_immediate(uint32_t i) {
    const uint64_t immediate = (i >> 10) & 0xfff;
    return (i & (1u << 22)) != 0 ? immediate << 12 : immediate;
}

// imm7, scaled by the 8-byte register size.
int64_t pair_offset(uint32_t i) {
    const int64_t scaled = static_cast<int64_t>((i >> 15) & 0x7f);
    return (scaled >= 64 ? scaled - 128 : scaled) * 8;
}

// The instructions at pc, read without assuming alignment beyond the instruction's own.
void read_instructions(uintptr_t pc, uint32_t* out, size_t count) {
    std::memcpy(out, reinterpret_cast<const void*>(pc), count * sizeof(uint32_t));
}

bool is_frame_allocation(uint32_t i, uint32_t next) { return is_sub_sp_sp(i) && is_store_record(next); }

// The bytes sp is below the caller's at pc, for kReturnAddressInLink: the frame is allocated but
// its record not stored yet (at the store, M + 16), or the record is loaded but the frame not
// freed yet (at the add, N); 0 when nothing is allocated.
uint64_t bytes_below_caller(uintptr_t pc) {
    uint32_t i;
    read_instructions(pc, &i, 1);
    if (is_store_record(i)) return static_cast<uint64_t>(pair_offset(i) + 16);
    if (is_add_sp_sp(i)) return add_sub_immediate(i);
    return 0;
}

}  // namespace

// Stubs are not decoded on aarch64 yet: they read as built, as AsyncGetCallTrace itself takes them.
FrameSetup stub_frame_setup_at(uintptr_t) { return FrameSetup::kBuilt; }

FrameSetup compiled_frame_setup_at(uintptr_t pc) {
    uint32_t c[4];
    read_instructions(pc, c, 4);
    // The unverified entry, up to its branch to the verified one.
    for (int k = 0; k < 3; k++) {
        if (is_klass_compare(c[k]) && is_branch_if_equal(c[k + 1])) return FrameSetup::kReturnAddressInLink;
    }
    // The verified entry's patching nop, the stack bang, a small frame's allocation and record
    // store: nothing of the frame is there but (at the store) its space.
    if (c[0] == kNop && (is_bang_address(c[1]) || is_frame_allocation(c[1], c[2]) || is_push_record(c[1]))) {
        return FrameSetup::kReturnAddressInLink;
    }
    if (is_bang_address(c[0]) && is_bang_store(c[1])) return FrameSetup::kReturnAddressInLink;
    if (is_bang_store(c[0]) && (is_sub_sp_sp(c[1]) || is_push_record(c[1]))) return FrameSetup::kReturnAddressInLink;
    if (is_frame_allocation(c[0], c[1]) || is_store_record(c[0]) || is_push_record(c[0])) {
        return FrameSetup::kReturnAddressInLink;
    }
    // A large frame between pushing its record and allocating the rest, or between freeing the
    // rest and popping the record.
    if (is_pop_record(c[0]) || is_mov_fp_sp(c[0]) || is_sub_sp_sp(c[0]) || is_sub_sp_sp_register(c[0])) {
        return FrameSetup::kSavedFpOnTop;
    }
    // A small frame's free (a large frame's is followed by the pop: still built there), then the
    // return poll and the return.
    if (is_add_sp_sp(c[0]) && !is_pop_record(c[1])) return FrameSetup::kReturnAddressInLink;
    if ((is_poll_load(c[0]) && is_poll_compare(c[1])) || (is_poll_compare(c[0]) && is_branch_if_higher(c[1])) ||
        (is_branch_if_higher(c[0]) && c[1] == kRet) || c[0] == kRet) {
        return FrameSetup::kReturnAddressInLink;
    }
    return FrameSetup::kBuilt;
}

bool caller_of_unbuilt_frame(const void* ucontext, FrameSetup setup, const ThreadSlotView& thread, Registers* caller) {
    const Registers at_signal = read_registers(ucontext);
    if (setup == FrameSetup::kSavedFpOnTop && thread.holds(at_signal.sp, 2 * sizeof(uintptr_t))) {
        const uintptr_t* record = reinterpret_cast<const uintptr_t*>(at_signal.sp);
        *caller = Registers{record[1] - 1, at_signal.sp + 2 * sizeof(uintptr_t), record[0]};
        return true;
    }
    if (setup == FrameSetup::kReturnAddressInLink) {
        const uintptr_t link = static_cast<uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.regs[kLinkRegister]);
        const uintptr_t caller_sp = at_signal.sp + bytes_below_caller(at_signal.pc);
        if (link == 0 || !thread.holds(caller_sp, sizeof(uintptr_t))) return false;
        *caller = Registers{link - 1, caller_sp, at_signal.fp};
        return true;
    }
    // kReturnAddressOnTop is x86_64's (a call pushes its return address); bl leaves it in x30.
    return false;
}

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
