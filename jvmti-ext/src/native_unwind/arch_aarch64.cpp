#if defined(__aarch64__) && defined(__linux__)

#include <ucontext.h>

#include <cstring>

#include "hotspot/stub_code.h"
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
                     static_cast<uintptr_t>(m.regs[kFramePointer]), static_cast<uintptr_t>(m.regs[kLinkRegister])};
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

namespace {

// What a stub's instructions do to the registers that locate its caller (sp, x29, x30). The
// classes below are supersets: an instruction that might write one of them counts as writing it
// (an xzr destination of an add/sub counts for sp too), since a false "writes" only leaves a walk
// failed, while a missed one would take a wrong caller.
constexpr uint32_t kRegisterMask = 0x1f;
bool is_frame_register(uint32_t r) { return r == 29 || r == 30; }
uint32_t rd(uint32_t i) { return i & kRegisterMask; }

// HotSpot's leave(): `mov sp, x29` before the pop.
bool is_mov_sp_fp(uint32_t i) { return i == 0x910003bf; }

// Writes sp other than through a load or store: add/sub (immediate or extended register) and the
// logical immediates without flags, whose destination 31 is sp; SVE's addvl/addpl (any SVE
// instruction with destination 31, a superset).
bool writes_sp_arithmetic(uint32_t i) {
    if (rd(i) != 31) return false;
    if ((i & 0x1f800000) == 0x11000000 && (i & (1u << 29)) == 0) return true;    // add/sub immediate
    if ((i & 0x1f200000) == 0x0b200000 && (i & (1u << 29)) == 0) return true;    // add/sub extended register
    if ((i & 0x1f800000) == 0x12000000 && (i & 0x60000000) != 0x60000000) return true;  // logical immediate, not ands
    return (i & 0x1e000000) == 0x04000000;                                        // SVE
}

// A load or store, general or SIMD (op0 x1x0).
bool is_load_store(uint32_t i) { return (i & 0x0a000000) == 0x08000000; }
// One that writes its base register back (pre- or post-index, single register or pair).
bool writes_back_base(uint32_t i) {
    return (i & 0x3b200400) == 0x38000400 || (i & 0x3a800000) == 0x28800000;
}
uint32_t base_register(uint32_t i) { return (i >> 5) & kRegisterMask; }

// bl, blr (and blraa/blrab): they write x30 with the link.
bool is_call(uint32_t i) { return (i & 0xfc000000) == 0x94000000 || (i & 0xfefff000) == 0xd63f0000; }

// Writes x29 or x30 (or might): an integer data-processing destination, a general register loaded
// (either of a pair), an exclusive store's status, a system register read, a move from a SIMD
// register or FP conversion into one, any SVE destination, a call's link.
bool writes_frame_register(uint32_t i) {
    if ((i & 0x1c000000) == 0x10000000 || (i & 0x0e000000) == 0x0a000000) return is_frame_register(rd(i));
    if (is_load_store(i)) {
        if ((i & (1u << 26)) != 0) return false;  // SIMD registers
        if (is_frame_register(rd(i))) return true;
        if ((i & 0x3a000000) == 0x28000000 && is_frame_register((i >> 10) & kRegisterMask)) return true;
        return (i & 0x3f000000) == 0x08000000 && is_frame_register((i >> 16) & kRegisterMask);
    }
    if ((i & 0xfff00000) == 0xd5300000) return is_frame_register(rd(i));                        // mrs
    if ((i & 0x5f20fc00) == 0x1e200000 || (i & 0x9fe08400) == 0x0e000400) return is_frame_register(rd(i));
    if ((i & 0x1e000000) == 0x04000000) return is_frame_register(rd(i)) || rd(i) == 31;        // SVE
    if (is_call(i)) return true;
    return false;
}

// A branch, exception or system instruction (b, bl, br, blr, ret, cbz, tbz, b.cond, svc, hints).
bool is_branch_or_system(uint32_t i) { return (i & 0x1c000000) == 0x14000000; }

// What may run between leave()'s pop and the ret: leave() then `mov x0, xzr` (the arraycopy stubs'
// return value 0). Nothing that branches or that writes sp, x29 or x30, so sp, x29 and x30 are the
// caller's there as at the ret.
bool is_after_pop(uint32_t i) {
    return !is_branch_or_system(i) && !writes_sp_arithmetic(i) && !writes_frame_register(i) &&
           !(is_load_store(i) && base_register(i) == 31);
}

// Pointer authentication of the link (paciasp, autiasp and the other hints of CRm 3, retaa/retab):
// the saved x30 would then be a signed address, not a PC.
bool authenticates_link(uint32_t i) { return (i & 0xffffff1f) == 0xd503231f || (i & 0xfffffbff) == 0xd65f0bff; }

// The stub of [start, end) with count instructions read into code.
FrameSetup decode_stub(const uint32_t* code, size_t count, size_t at) {
    // A leaf stub that never touches sp, x29 or x30: at every PC they are the caller's, and the
    // caller's PC is the return address in x30 (the stub was entered by bl, or by a trampoline's
    // br after the caller's bl). One stub can see nothing of another that jumps into it: in the
    // arm64 JDK 17 and 25 only ghash_processBlocks_wide jumps into a stub decoded here
    // (ghash_processBlocks), and both of its jumps come with sp, x29 and x30 still its caller's
    // (before it saves registers, and after it reloads them).
    for (size_t k = 0; k < count; k++) {
        if (authenticates_link(code[k])) return FrameSetup::kUnknown;
    }
    bool frameless = true;
    for (size_t k = 0; k < count && frameless; k++) {
        const uint32_t i = code[k];
        frameless = !writes_sp_arithmetic(i) && !writes_frame_register(i) &&
                    !(is_load_store(i) && base_register(i) == 31);
    }
    if (frameless) return FrameSetup::kReturnAddressInLink;
    // enter() first (after alignment nops), leave() and ret last on every exit: `stp x29, x30,
    // [sp, #-16]!; mov x29, sp` ... `[mov sp, x29;] ldp x29, x30, [sp], #16; [is_after_pop ...;]
    // ret`. Anything else that moves sp or writes x29 (a stub saving registers below its record,
    // a second entry jumped to with another frame) is not decoded: its walks keep failing.
    size_t first = 0;
    while (first < count && code[first] == kNop) first++;
    if (first + 1 >= count || !is_push_record(code[first]) || !is_mov_fp_sp(code[first + 1])) return FrameSetup::kUnknown;
    if (at < first) return FrameSetup::kUnknown;
    for (size_t k = first + 2; k < count; k++) {
        const uint32_t i = code[k];
        if (is_pop_record(i)) {
            size_t next = k + 1;
            while (next < count && is_after_pop(code[next])) next++;
            if (next >= count || code[next] != kRet) return FrameSetup::kUnknown;
            continue;
        }
        if (i == kRet) {
            size_t previous = k - 1;
            while (is_after_pop(code[previous])) previous--;
            if (!is_pop_record(code[previous])) return FrameSetup::kUnknown;
            continue;
        }
        if (is_mov_sp_fp(i)) continue;
        if (is_push_record(i) || is_mov_fp_sp(i) || writes_sp_arithmetic(i) ||
            (is_load_store(i) && base_register(i) == 31 && writes_back_base(i))) {
            return FrameSetup::kUnknown;
        }
        // x30 is saved in the record: a call's link or another write of it loses nothing. x29 is not.
        if (writes_frame_register(i) && !is_call(i) &&
            !(rd(i) == 30 && !is_load_store(i))) {
            return FrameSetup::kUnknown;
        }
    }
    // sp stays at the record from the push to the pop, so the record is at sp there.
    if (at == first) return FrameSetup::kReturnAddressInLink;            // the push
    if (at == first + 1) return FrameSetup::kSavedFpOnTop;               // mov x29, sp
    if (is_pop_record(code[at])) return FrameSetup::kSavedFpOnTop;
    if (code[at] == kRet) return FrameSetup::kReturnAddressInLink;       // after the pop
    // Between the pop and the ret every exit's instructions are is_after_pop ones (checked above).
    size_t previous = at;
    while (previous > first + 1 && is_after_pop(code[previous - 1])) previous--;
    if (previous > first + 1 && is_pop_record(code[previous - 1])) return FrameSetup::kReturnAddressInLink;
    return FrameSetup::kRecordAtFramePointer;
}

}  // namespace

FrameSetup stub_frame_setup_in(uintptr_t pc, uintptr_t start, uintptr_t end) {
    if (start % sizeof(uint32_t) != 0 || pc % sizeof(uint32_t) != 0 || pc < start || pc >= end ||
        end - start > kMaxDecodedStubBytes) {
        return FrameSetup::kUnknown;
    }
    // Read in place: the stub's code is mapped as long as the JVM runs (StubCode's ranges), and a
    // copy would put kMaxDecodedStubBytes on the interrupted thread's stack.
    const uint32_t* code = reinterpret_cast<const uint32_t*>(start);
    return decode_stub(code, (end - start) / sizeof(uint32_t), (pc - start) / sizeof(uint32_t));
}

FrameSetup stub_frame_setup_at(uintptr_t pc) {
    StubCode::Range range{};
    if (!StubCode::range_of(pc, &range)) return FrameSetup::kUnknown;
    return stub_frame_setup_in(pc, range.start, range.end);
}

bool caller_of_calling_stub(const ThreadSlotView& thread, const Registers& at_return, Registers* caller) {
    StubCode::Range range{};
    const uintptr_t pc = at_return.pc;
    if (!StubCode::range_of(pc, &range) || pc % sizeof(uint32_t) != 0 || pc < range.start + sizeof(uint32_t)) {
        return false;
    }
    // A return address follows its call: anything else is no return address of this stub's.
    uint32_t call;
    read_instructions(pc - sizeof(uint32_t), &call, 1);
    if (!is_call(call) || stub_frame_setup_in(pc, range.start, range.end) != FrameSetup::kRecordAtFramePointer) {
        return false;
    }
    // As for a signal in the stub itself (caller_of_unbuilt_frame): x29 == sp tells its built record.
    if (at_return.fp != at_return.sp || !thread.holds(at_return.fp, 2 * sizeof(uintptr_t))) return false;
    const uintptr_t* record = reinterpret_cast<const uintptr_t*>(at_return.fp);
    if (record[1] == 0) return false;
    *caller = Registers{record[1], at_return.fp + 2 * sizeof(uintptr_t), record[0]};
    return true;
}

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
    // A stub's own record, which it keeps at sp from its push to its pop: x29 == sp tells a built
    // record from a stub entered past its enter() with the caller's x29.
    if (setup == FrameSetup::kRecordAtFramePointer && at_signal.fp == at_signal.sp &&
        thread.holds(at_signal.fp, 2 * sizeof(uintptr_t))) {
        const uintptr_t* record = reinterpret_cast<const uintptr_t*>(at_signal.fp);
        if (record[1] == 0) return false;
        *caller = Registers{record[1] - 1, at_signal.fp + 2 * sizeof(uintptr_t), record[0]};
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
