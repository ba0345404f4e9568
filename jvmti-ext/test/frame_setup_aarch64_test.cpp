// Reading how far a compiled method's frame is set up from the instructions at a PC, and where
// its caller is then (arch_aarch64.cpp), on the instruction sequences HotSpot's aarch64 C1 and C2
// frames use (encodings checked with aarch64-linux-gnu-as). aarch64 only.
#include <ucontext.h>

#include <cstdint>

#include "check.h"
#include "hotspot/stub_code.h"
#include "native_unwind/arch.h"
#include "request/thread_registry.h"

using namespace stackreq;

namespace {

constexpr uint32_t kNop = 0xd503201f, kRet = 0xd65f03c0;

FrameSetup at(const uint32_t* code, int index) { return compiled_frame_setup_at(reinterpret_cast<uintptr_t>(code + index)); }

// A small frame (64 bytes) as C2 builds and frees it, with its stack bang and return poll.
const uint32_t kSmallFrame[] = {
    kNop,        //  0 the verified entry's patching nop
    0xd14053e9,  //  1 sub x9, sp, #0x14, lsl #12   (stack bang)
    0xf900013f,  //  2 str xzr, [x9]
    0xd10103ff,  //  3 sub sp, sp, #0x40
    0xa9037bfd,  //  4 stp x29, x30, [sp, #48]
    0xf9000be0,  //  5 str x0, [sp, #16]            (body)
    0xa9437bfd,  //  6 ldp x29, x30, [sp, #48]
    0x910103ff,  //  7 add sp, sp, #0x40
    0xf9401788,  //  8 ldr x8, [x28, #40]           (return poll)
    0xeb2863ff,  //  9 cmp sp, x8
    0x54000208,  // 10 b.hi slow path
    kRet,        // 11
    kNop, kNop, kNop, kNop,
};

// A large frame (0x240 bytes): the record pushed first, popped last.
const uint32_t kLargeFrame[] = {
    kNop,        //  0
    0xa9bf7bfd,  //  1 stp x29, x30, [sp, #-16]!
    0xd108c3ff,  //  2 sub sp, sp, #0x230
    0xf9000be0,  //  3 str x0, [sp, #16]            (body)
    0x9108c3ff,  //  4 add sp, sp, #0x230
    0xa8c17bfd,  //  5 ldp x29, x30, [sp], #16
    kRet,        //  6
    kNop, kNop, kNop, kNop,
};

// The unverified entry before it: the inline cache check, then its miss path.
const uint32_t kUnverifiedEntry[] = {
    0xb9400828,  //  0 ldr w8, [x1, #8]
    0x6b08013f,  //  1 cmp w9, w8
    0x54000060,  //  2 b.eq verified entry
    0x14000000,  //  3 b ic miss stub
    kNop, kNop, kNop, kNop,
};

void test_unverified_entry() {
    for (int i : {0, 1}) CHECK(at(kUnverifiedEntry, i) == FrameSetup::kReturnAddressInLink);
    // A compare of other registers is body code.
    const uint32_t body[] = {0xeb01001f /* cmp x0, x1 */, 0x54000060, kNop, kNop, kNop, kNop};
    CHECK(at(body, 0) == FrameSetup::kBuilt);
}

void test_small_frame() {
    for (int i : {0, 1, 2, 3, 4}) CHECK(at(kSmallFrame, i) == FrameSetup::kReturnAddressInLink);
    CHECK(at(kSmallFrame, 5) == FrameSetup::kBuilt);
    CHECK(at(kSmallFrame, 6) == FrameSetup::kBuilt);  // ldp: the record is still where it was stored
    for (int i : {7, 8, 9, 10, 11}) CHECK(at(kSmallFrame, i) == FrameSetup::kReturnAddressInLink);
}

void test_large_frame() {
    CHECK(at(kLargeFrame, 0) == FrameSetup::kReturnAddressInLink);
    CHECK(at(kLargeFrame, 1) == FrameSetup::kReturnAddressInLink);
    CHECK(at(kLargeFrame, 2) == FrameSetup::kSavedFpOnTop);
    CHECK(at(kLargeFrame, 3) == FrameSetup::kBuilt);
    CHECK(at(kLargeFrame, 4) == FrameSetup::kBuilt);  // add before the pop: the frame is whole
    CHECK(at(kLargeFrame, 5) == FrameSetup::kSavedFpOnTop);
    CHECK(at(kLargeFrame, 6) == FrameSetup::kReturnAddressInLink);
}

// The caller's registers from a signal at each point: its PC from x30 or from the record, its sp
// above the signal's by what the instruction at pc has yet to undo.
void test_callers() {
    alignas(16) uintptr_t stack[64] = {};
    const uintptr_t low = reinterpret_cast<uintptr_t>(stack);
    ThreadSlotView thread{nullptr, low, low + sizeof(stack), false, 0};
    constexpr uintptr_t kReturn = 0x7f0000001234, kCallerFp = 0x7f0000fff000;
    ucontext_t context{};
    context.uc_mcontext.regs[30] = kReturn;
    const uintptr_t caller_sp = low + 0x100;
    Registers caller{};
    // At the record store: the 64-byte frame is allocated already.
    write_registers(&context, Registers{reinterpret_cast<uintptr_t>(kSmallFrame + 4), caller_sp - 0x40, kCallerFp});
    CHECK(caller_of_unbuilt_frame(&context, FrameSetup::kReturnAddressInLink, thread, &caller));
    CHECK(caller.pc == kReturn - 1 && caller.sp == caller_sp && caller.fp == kCallerFp);
    // At the free after the record is loaded again.
    write_registers(&context, Registers{reinterpret_cast<uintptr_t>(kSmallFrame + 7), caller_sp - 0x40, kCallerFp});
    CHECK(caller_of_unbuilt_frame(&context, FrameSetup::kReturnAddressInLink, thread, &caller));
    CHECK(caller.pc == kReturn - 1 && caller.sp == caller_sp);
    // At the return poll: nothing left below the caller's sp.
    write_registers(&context, Registers{reinterpret_cast<uintptr_t>(kSmallFrame + 9), caller_sp, kCallerFp});
    CHECK(caller_of_unbuilt_frame(&context, FrameSetup::kReturnAddressInLink, thread, &caller));
    CHECK(caller.pc == kReturn - 1 && caller.sp == caller_sp);
    // A large frame's record on top: the caller's PC and fp from it, not from x30.
    const uintptr_t record = caller_sp - 16;
    stack[(record - low) / sizeof(uintptr_t)] = kCallerFp;
    stack[(record - low) / sizeof(uintptr_t) + 1] = kReturn + 8;
    write_registers(&context, Registers{reinterpret_cast<uintptr_t>(kLargeFrame + 5), record, 0});
    CHECK(caller_of_unbuilt_frame(&context, FrameSetup::kSavedFpOnTop, thread, &caller));
    CHECK(caller.pc == kReturn + 7 && caller.sp == caller_sp && caller.fp == kCallerFp);
    // Off the thread's stack, or without a return address: no caller.
    write_registers(&context, Registers{reinterpret_cast<uintptr_t>(kSmallFrame + 9), low + sizeof(stack), 0});
    CHECK(!caller_of_unbuilt_frame(&context, FrameSetup::kReturnAddressInLink, thread, &caller));
    context.uc_mcontext.regs[30] = 0;
    write_registers(&context, Registers{reinterpret_cast<uintptr_t>(kSmallFrame + 9), caller_sp, 0});
    CHECK(!caller_of_unbuilt_frame(&context, FrameSetup::kReturnAddressInLink, thread, &caller));
    // x86_64's reading has no meaning here.
    CHECK(!caller_of_unbuilt_frame(&context, FrameSetup::kReturnAddressOnTop, thread, &caller));
}

// Leaf stubs, decoded whole (stub_frame_setup_in); encodings from aarch64-linux-gnu-as
// -march=armv8.3-a.
FrameSetup in_stub(const uint32_t* code, size_t count, size_t index) {
    const uintptr_t start = reinterpret_cast<uintptr_t>(code);
    return stub_frame_setup_in(start + index * 4, start, start + count * 4);
}

// A stub that builds no record and keeps sp, x29 and x30 the caller's (as the vectorized hash code
// does): the caller's PC is in x30 everywhere, SIMD registers 29 and 30 notwithstanding.
const uint32_t kFramelessStub[] = {
    0x4cdf7020,  // 0 ld1 {v0.16b}, [x1], #16
    0x91000400,  // 1 add x0, x0, #0x1
    0x0e043c02,  // 2 mov w2, v0.s[0]
    0x4ea01c1d,  // 3 mov v29.16b, v0.16b
    0xeb03001f,  // 4 cmp x0, x3
    0xb100041f,  // 5 cmn x0, #0x1  (adds xzr: not sp)
    0x10ffff69,  // 6 adr x9, start
    0xd61f0120,  // 7 br x9
    kRet,        // 8
};

// enter() ... leave(); ret, with a call and two exits.
const uint32_t kEnterStub[] = {
    0xa9bf7bfd,  // 0 stp x29, x30, [sp, #-16]!
    0x910003fd,  // 1 mov x29, sp
    0xf9400422,  // 2 ldr x2, [x1, #8]
    0x97fffffd,  // 3 bl
    0xb4000082,  // 4 cbz x2, 8
    0x910003bf,  // 5 mov sp, x29
    0xa8c17bfd,  // 6 ldp x29, x30, [sp], #16
    kRet,        // 7
    0xa8c17bfd,  // 8 ldp x29, x30, [sp], #16
    kRet,        // 9
};

void test_frameless_stub() {
    constexpr size_t n = sizeof(kFramelessStub) / 4;
    for (size_t i = 0; i < n; i++) CHECK(in_stub(kFramelessStub, n, i) == FrameSetup::kReturnAddressInLink);
    // Outside the range, or a range too long to decode in a signal handler.
    const uintptr_t start = reinterpret_cast<uintptr_t>(kFramelessStub);
    CHECK(stub_frame_setup_in(start + n * 4, start, start + n * 4) == FrameSetup::kUnknown);
    CHECK(stub_frame_setup_in(start, start, start + kMaxDecodedStubBytes + 4) == FrameSetup::kUnknown);
}

// Instructions of the arm64 JDK 25's large_arrays_hashcode_byte (String.hashCode's stub), as
// -XX:+PrintStubCode dumps them: enter(), SIMD set-up, the computed jump into an unrolled loop
// (adr; sub; br), the loop's post-indexed loads, leave() and ret.
const uint32_t kHashCodeStub[] = {
    0xa9bf7bfd, 0x910003fd,  //  0 enter()
    0x528e8be8, 0x4e041d0c,  //  2 mov w8, #...; mov v12.s[0], w8
    0x927d0449, 0xb40004e9,  //  4 and x9, x2, #...; cbz x9
    0x0cdf7023,              //  6 ld1 {v3.8b}, [x1], #8
    0x10000248, 0xcb294d08,  //  7 adr x8, loop end; sub x8, x8, w9, uxtw #3
    0x320013e9, 0xd61f0100,  //  9 mov w9, #0x1f; br x8
    0x38801428, 0x1b092000,  // 11 ldrsb x8, [x1], #1; madd w0, w0, w9, w8
    0x910003bf, 0xa8c17bfd,  // 13 leave()
    kRet,                    // 15
};

void test_hash_code_stub() {
    constexpr size_t n = sizeof(kHashCodeStub) / 4;
    CHECK(in_stub(kHashCodeStub, n, 0) == FrameSetup::kReturnAddressInLink);
    CHECK(in_stub(kHashCodeStub, n, 1) == FrameSetup::kSavedFpOnTop);
    for (size_t i = 2; i <= 13; i++) CHECK(in_stub(kHashCodeStub, n, i) == FrameSetup::kRecordAtFramePointer);
    CHECK(in_stub(kHashCodeStub, n, 14) == FrameSetup::kSavedFpOnTop);
    CHECK(in_stub(kHashCodeStub, n, 15) == FrameSetup::kReturnAddressInLink);
}

void test_enter_stub() {
    constexpr size_t n = sizeof(kEnterStub) / 4;
    CHECK(in_stub(kEnterStub, n, 0) == FrameSetup::kReturnAddressInLink);
    CHECK(in_stub(kEnterStub, n, 1) == FrameSetup::kSavedFpOnTop);
    for (size_t i : {2, 3, 4, 5}) CHECK(in_stub(kEnterStub, n, i) == FrameSetup::kRecordAtFramePointer);
    CHECK(in_stub(kEnterStub, n, 6) == FrameSetup::kSavedFpOnTop);
    CHECK(in_stub(kEnterStub, n, 7) == FrameSetup::kReturnAddressInLink);
    CHECK(in_stub(kEnterStub, n, 8) == FrameSetup::kSavedFpOnTop);
    CHECK(in_stub(kEnterStub, n, 9) == FrameSetup::kReturnAddressInLink);
    // Alignment nops before enter(): a PC on them is not the stub's.
    const uint32_t aligned[] = {kNop, 0xa9bf7bfd, 0x910003fd, 0xf9400422, 0xa8c17bfd, kRet};
    CHECK(in_stub(aligned, 6, 0) == FrameSetup::kUnknown);
    CHECK(in_stub(aligned, 6, 1) == FrameSetup::kReturnAddressInLink);
    CHECK(in_stub(aligned, 6, 3) == FrameSetup::kRecordAtFramePointer);
    // A pop not followed by ret, a ret without the pop: where the frame is, is not known.
    const uint32_t pop_then_branch[] = {0xa9bf7bfd, 0x910003fd, 0xa8c17bfd, 0x14000001, kRet};
    CHECK(in_stub(pop_then_branch, 5, 2) == FrameSetup::kUnknown);
    const uint32_t bare_ret[] = {0xa9bf7bfd, 0x910003fd, 0xf9400422, kRet};
    CHECK(in_stub(bare_ret, 4, 2) == FrameSetup::kUnknown);
}

// Instructions that make the decode give up, in a frameless stub and in an enter() stub's body
// (where x30's writes and sp-relative accesses without write-back are harmless).
void test_undecoded_stubs() {
    struct Case {
        uint32_t instruction;
        bool harmless_after_enter;
    };
    const Case cases[] = {
        {0xd10103ff, false},  // sub sp, sp, #0x40
        {0x6dbf27e8, false},  // stp d8, d9, [sp, #-16]!
        {0xaa0003fd, false},  // mov x29, x0
        {0xa9407be0, false},  // ldp x0, x30, [sp]   (a load into x30)
        {0x0e043c1d, false},  // mov w29, v0.s[0]
        {0xd503233f, false},  // paciasp
        {0xd65f0bff, false},  // retaa
        {0xc81d7c20, false},  // stxr w29, x0, [x1]
        {0x97fffffd, true},   // bl
        {0xf90007e0, true},   // str x0, [sp, #8]
        {0xaa0103fe, true},   // mov x30, x1
    };
    for (const Case& c : cases) {
        const uint32_t frameless[] = {0x91000400, c.instruction, 0x91000400, kRet};
        CHECK(in_stub(frameless, 4, 0) == FrameSetup::kUnknown);
        const uint32_t entered[] = {0xa9bf7bfd, 0x910003fd, c.instruction, 0x91000400, 0xa8c17bfd, kRet};
        CHECK(in_stub(entered, 6, 3) ==
              (c.harmless_after_enter ? FrameSetup::kRecordAtFramePointer : FrameSetup::kUnknown));
    }
}

// The caller from a stub's own record: only while x29 is sp, as it is from enter() to leave().
void test_stub_record_caller() {
    alignas(16) uintptr_t stack[64] = {};
    const uintptr_t low = reinterpret_cast<uintptr_t>(stack);
    ThreadSlotView thread{nullptr, low, low + sizeof(stack), false, 0};
    constexpr uintptr_t kReturn = 0x7f0000001234, kCallerFp = 0x7f0000fff000;
    const uintptr_t record = low + 0x100;
    stack[(record - low) / sizeof(uintptr_t)] = kCallerFp;
    stack[(record - low) / sizeof(uintptr_t) + 1] = kReturn;
    ucontext_t context{};
    context.uc_mcontext.regs[30] = 0x7f0000009999;  // a call's link, not the caller
    Registers caller{};
    write_registers(&context, Registers{reinterpret_cast<uintptr_t>(kEnterStub + 2), record, record});
    CHECK(caller_of_unbuilt_frame(&context, FrameSetup::kRecordAtFramePointer, thread, &caller));
    CHECK(caller.pc == kReturn - 1 && caller.sp == record + 16 && caller.fp == kCallerFp);
    // Entered past its enter(): x29 is the caller's, away from sp.
    write_registers(&context, Registers{reinterpret_cast<uintptr_t>(kEnterStub + 2), record, record + 0x40});
    CHECK(!caller_of_unbuilt_frame(&context, FrameSetup::kRecordAtFramePointer, thread, &caller));
    CHECK(!caller_of_unbuilt_frame(&context, FrameSetup::kUnknown, thread, &caller));
}


// The arm64 JDK 17's arrayof_jlong_disjoint_arraycopy (jlong_disjoint_arraycopy is the same stub)
// and its copy loop forward_copy_longs, and JDK 25's jbyte_disjoint_arraycopy and copy_byte_f, as
// -XX:+PrintStubCode dumps them (17.0.21, 25.0.5). The arraycopy stub: enter(); small copies inline
// (ldp/stp off x0, x1, x16, x17); a large one aligns, then `bl` the copy loop (JDK 17 at 50, JDK 25
// at 77) and copies the tail; leave(); `mov x0, xzr; ret`. The copy loop touches none of sp, x29,
// x30 (its loads and stores are off x0 and x1).
const uint32_t kJlongArraycopy17[] = {
    0xa9bf7bfd, 0x910003fd, 0xf9800000, 0xf100285f, 0x54000528, 0x8b226c11, 0x8b226c30, 0xf100085f,  // 0
    0x540003c9, 0xf100205f, 0x54000228, 0xf100105f, 0x54000149, 0xa9401003, 0xa9411805, 0xa97e2227,  // 8
    0xa97f2a29, 0xa9001023, 0xa9011825, 0xa93e2207, 0xa93f2a09, 0x14000021, 0xa9401003, 0xa97f1a25,  // 16
    0xa9001023, 0xa93f1a05, 0x1400001c, 0xa9401003, 0xa9411805, 0xa9422007, 0xa9432809, 0xa97f322b,  // 24
    0xa9001023, 0xa9011825, 0xa9022027, 0xa9032829, 0xa93f320b, 0x14000011, 0xf100045f, 0x540001e3,  // 32
    0xf9400003, 0xf85f8224, 0xf9000023, 0xf81f8204, 0x1400000a, 0x36180080, 0xf8408408, 0xf8008428,  // 40
    0xd1000442, 0xd340fc49, 0x97fffb4e, 0x36000062, 0xf8408408, 0xf8008428, 0x910003bf, 0xa8c17bfd,  // 48
    0xaa1f03e0, 0xd65f03c0,                                                                          // 56
};
const uint32_t kForwardCopyLongs17[] = {
    0xd1004000, 0xd1004021, 0xa9411003, 0xa9421805, 0xa9432807, 0xa9c4300b, 0xf1004129, 0x54000183,  // 0
    0xf9803000, 0xa9011023, 0xa9411003, 0xa9021825, 0xa9421805, 0xa9032827, 0xa9432807, 0xa984302b,  // 8
    0xa9c4300b, 0xf1002129, 0x54fffec2, 0xa9011023, 0xa9021825, 0xa9032827, 0xa984302b, 0x361000a9,  // 16
    0xa9411003, 0xa9c21805, 0xa9011023, 0xa9821825, 0x91004000, 0x91004021, 0x36080069, 0xa8c11003,  // 24
    0xa8811023, 0xd65f03c0,                                                                          // 32
};
const uint32_t kJbyteArraycopy25[] = {
    0xa9bf7bfd, 0x910003fd, 0xf9800000, 0xf101405f, 0x54000708, 0x8b226011, 0x8b226030, 0xf100405f,  // 0
    0x540003c9, 0xf101005f, 0x54000228, 0xf100805f, 0x54000149, 0xa9401003, 0xa9411805, 0xa97e2e27,  // 8
    0xa97f362c, 0xa9001023, 0xa9011825, 0xa93e2e07, 0xa93f360c, 0x14000045, 0xa9401003, 0xa97f362c,  // 16
    0xa9001023, 0xa93f360c, 0x14000040, 0xa9401003, 0xa9411805, 0xa9422c07, 0xa943340c, 0xa97f3e2e,  // 24
    0xa9001023, 0xa9011825, 0xa9022c27, 0xa903342c, 0xa93f3e0e, 0x14000035, 0xf100205f, 0x540000c3,  // 32
    0xf9400003, 0xf85f8224, 0xf9000023, 0xf81f8204, 0x1400002e, 0x361000c2, 0xb9400003, 0xb85fc224,  // 40
    0xb9000023, 0xb81fc204, 0x14000028, 0xb40004e2, 0xd341fc42, 0x39400003, 0x385ff224, 0x38626805,  // 48
    0x39000023, 0x381ff204, 0x38226825, 0x1400001f, 0xcb0003ef, 0x92400def, 0xb40001cf, 0xcb0f0042,  // 56
    0x3618006f, 0xf8408403, 0xf8008423, 0x3610006f, 0xb8404403, 0xb8004423, 0x3608006f, 0x78402403,  // 64
    0x78002423, 0x3600006f, 0x38401403, 0x38001423, 0xd343fc4f, 0x97fffe83, 0x36180062, 0xf8408403,  // 72
    0xf8008423, 0x36100062, 0xb8404403, 0xb8004423, 0x36080062, 0x78402403, 0x78002423, 0x36000062,  // 80
    0x38401403, 0x38001423, 0x910003bf, 0xa8c17bfd, 0xaa1f03e0, 0xd65f03c0,                          // 88
};
const uint32_t kCopyByteF25[] = {
    0xd1004000, 0xd1004021, 0xa9411003, 0xa9421805, 0xa9432c07, 0xa9c4340c, 0xf10041ef, 0x54000183,  // 0
    0xf9803000, 0xa9011023, 0xa9411003, 0xa9021825, 0xa9421805, 0xa9032c27, 0xa9432c07, 0xa984342c,  // 8
    0xa9c4340c, 0xf10021ef, 0x54fffec2, 0xa9011023, 0xa9021825, 0xa9032c27, 0xa984342c, 0x361000af,  // 16
    0xa9411003, 0xa9c21805, 0xa9011023, 0xa9821825, 0x91004000, 0x91004021, 0x3608006f, 0xa8c11003,  // 24
    0xa8811023, 0xd65f03c0,                                                                          // 32
};

struct ArraycopyStub {
    const uint32_t* code;
    size_t count;
    size_t call;  // the bl of the copy loop
    const uint32_t* loop;
    size_t loop_count;
};
const ArraycopyStub kArraycopyStubs[] = {
    {kJlongArraycopy17, sizeof(kJlongArraycopy17) / 4, 50, kForwardCopyLongs17, sizeof(kForwardCopyLongs17) / 4},
    {kJbyteArraycopy25, sizeof(kJbyteArraycopy25) / 4, 77, kCopyByteF25, sizeof(kCopyByteF25) / 4},
};

// The arraycopy stub decodes whole: its record from enter() to leave()'s pop, the caller's x30
// and sp after it (`mov x0, xzr` before the ret); the copy loop is frameless.
void test_arraycopy_stubs() {
    for (const ArraycopyStub& stub : kArraycopyStubs) {
        const size_t n = stub.count;
        CHECK(in_stub(stub.code, n, 0) == FrameSetup::kReturnAddressInLink);
        CHECK(in_stub(stub.code, n, 1) == FrameSetup::kSavedFpOnTop);
        for (size_t i = 2; i <= n - 4; i++) CHECK(in_stub(stub.code, n, i) == FrameSetup::kRecordAtFramePointer);
        CHECK(in_stub(stub.code, n, n - 3) == FrameSetup::kSavedFpOnTop);         // the pop
        CHECK(in_stub(stub.code, n, n - 2) == FrameSetup::kReturnAddressInLink);  // mov x0, xzr
        CHECK(in_stub(stub.code, n, n - 1) == FrameSetup::kReturnAddressInLink);  // ret
        for (size_t i = 0; i < stub.loop_count; i++) {
            CHECK(in_stub(stub.loop, stub.loop_count, i) == FrameSetup::kReturnAddressInLink);
        }
    }
    // After the pop only what leaves sp, x29 and x30 alone, and no branch, up to the ret.
    const uint32_t after_pop[] = {
        0xaa0103fe,  // mov x30, x1
        0x910043ff,  // add sp, sp, #0x10
        0xaa0003fd,  // mov x29, x0
        0xf94003e0,  // ldr x0, [sp]
        0x14000001,  // b next
        0xd63f0020,  // blr x1
    };
    for (uint32_t instruction : after_pop) {
        const uint32_t code[] = {0xa9bf7bfd, 0x910003fd, 0xf9400422, 0x910003bf, 0xa8c17bfd, instruction, kRet};
        CHECK(in_stub(code, 7, 2) == FrameSetup::kUnknown);
        CHECK(in_stub(code, 7, 5) == FrameSetup::kUnknown);
    }
    const uint32_t two_after_pop[] = {0xa9bf7bfd, 0x910003fd, 0xa8c17bfd, 0xaa1f03e0, 0x91000400, kRet};
    CHECK(in_stub(two_after_pop, 6, 3) == FrameSetup::kReturnAddressInLink);
    CHECK(in_stub(two_after_pop, 6, 4) == FrameSetup::kReturnAddressInLink);
}

// A signal in the copy loop: its caller is the arraycopy stub at the bl's return address (x30),
// and that stub's caller is in its record at x29 (== sp there).
void test_nested_stub_caller() {
    StubCode::reset_for_test();
    alignas(16) uintptr_t stack[64] = {};
    const uintptr_t low = reinterpret_cast<uintptr_t>(stack);
    ThreadSlotView thread{nullptr, low, low + sizeof(stack), false, 0};
    constexpr uintptr_t kReturn = 0x7f0000001234, kCallerFp = 0x7f0000fff000;
    const uintptr_t record = low + 0x100;
    stack[(record - low) / sizeof(uintptr_t)] = kCallerFp;
    stack[(record - low) / sizeof(uintptr_t) + 1] = kReturn;
    const char* names[][2] = {{"arrayof_jlong_disjoint_arraycopy", "forward_copy_longs"},
                              {"jbyte_disjoint_arraycopy", "copy_byte_f"}};
    for (size_t s = 0; s < 2; s++) {
        const ArraycopyStub& stub = kArraycopyStubs[s];
        const uintptr_t start = reinterpret_cast<uintptr_t>(stub.code);
        const uintptr_t loop = reinterpret_cast<uintptr_t>(stub.loop);
        CHECK(StubCode::add(names[s][0], start, stub.count * 4));
        CHECK(StubCode::add(names[s][1], loop, stub.loop_count * 4));
        const uintptr_t return_address = start + (stub.call + 1) * 4;

        // The signal in the copy loop: x30 the bl's link, sp and x29 the arraycopy stub's.
        ucontext_t context{};
        context.uc_mcontext.regs[30] = return_address;
        write_registers(&context, Registers{loop + 17 * 4, record, record});
        const FrameSetup setup = stub_frame_setup_at(loop + 17 * 4);
        CHECK(setup == FrameSetup::kReturnAddressInLink);
        Registers in_calling_stub{};
        CHECK(caller_of_unbuilt_frame(&context, setup, thread, &in_calling_stub));
        in_calling_stub.pc += 1;
        CHECK(in_calling_stub.pc == return_address && in_calling_stub.sp == record && in_calling_stub.fp == record);
        Registers caller{};
        CHECK(caller_of_calling_stub(thread, in_calling_stub, &caller));
        CHECK(caller.pc == kReturn && caller.sp == record + 16 && caller.fp == kCallerFp);

        // x29 away from sp: not the record of an enter() that kept sp there.
        CHECK(!caller_of_calling_stub(thread, Registers{return_address, record - 16, record}, &caller));
        // Not after a call (the bl itself, the next instruction), outside the stub, or in the
        // copy loop (no call there).
        CHECK(!caller_of_calling_stub(thread, Registers{return_address - 4, record, record}, &caller));
        CHECK(!caller_of_calling_stub(thread, Registers{return_address + 4, record, record}, &caller));
        CHECK(!caller_of_calling_stub(thread, Registers{start + stub.count * 4 + 0x10000, record, record}, &caller));
        CHECK(!caller_of_calling_stub(thread, Registers{loop + 4, record, record}, &caller));
        // The record off the thread's stack.
        CHECK(!caller_of_calling_stub(thread, Registers{return_address, low + sizeof(stack), low + sizeof(stack)},
                                      &caller));
    }
    // A stub that pushes registers below its record before its call (as the oop arraycopy stubs
    // do) is not decoded: its return address places nothing, whatever x29 and sp say.
    const uint32_t pushes[] = {0xa9bf7bfd, 0x910003fd, 0xa9be07e0, 0x97fffffd, 0xa8c207e0, 0x910003bf, 0xa8c17bfd, kRet};
    CHECK(StubCode::add("arrayof_oop_disjoint_arraycopy", reinterpret_cast<uintptr_t>(pushes), sizeof(pushes)));
    Registers caller{};
    CHECK(!caller_of_calling_stub(thread, Registers{reinterpret_cast<uintptr_t>(pushes + 4), record, record}, &caller));
    StubCode::reset_for_test();
}

}  // namespace

int main() {
    return run_tests("frame_setup_aarch64_test", {test_unverified_entry, test_small_frame, test_large_frame, test_callers,
                                                  test_frameless_stub, test_enter_stub, test_hash_code_stub, test_undecoded_stubs,
                                                  test_stub_record_caller, test_arraycopy_stubs, test_nested_stub_caller});
}
