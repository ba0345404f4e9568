#if defined(__x86_64__) && defined(__linux__)

#include <ucontext.h>
#include <x86intrin.h>

#include "native_unwind/arch.h"
#include "request/thread_registry.h"

namespace stackreq {

Registers read_registers(const void* ucontext) {
    const mcontext_t& m = static_cast<const ucontext_t*>(ucontext)->uc_mcontext;
    return Registers{static_cast<uintptr_t>(m.gregs[REG_RIP]), static_cast<uintptr_t>(m.gregs[REG_RSP]),
                     static_cast<uintptr_t>(m.gregs[REG_RBP])};
}

uintptr_t read_interpreter_bcp(const void* ucontext) {
    return static_cast<uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_R13]);
}

uintptr_t read_interpreter_method(const void* ucontext) {
    return static_cast<uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RBX]);
}

uint64_t cycle_counter() { return __rdtsc(); }

namespace {

constexpr uint8_t kPushRbp = 0x55, kPopRbp = 0x5d, kRet = 0xc3, kRetImmediate = 0xc2;
constexpr uint8_t kRexW = 0x48, kRexWB = 0x49, kRexB = 0x41, kRexWRB = 0x4d;

// mov rbp, rsp: 48 8b ec (HotSpot's encoding) or 48 89 e5
bool is_mov_rbp_rsp(const uint8_t* c) {
    return c[0] == kRexW && ((c[1] == 0x8b && c[2] == 0xec) || (c[1] == 0x89 && c[2] == 0xe5));
}

// sub rsp, imm8 / imm32: 48 83 ec ib, 48 81 ec id
bool is_sub_rsp(const uint8_t* c) { return c[0] == kRexW && (c[1] == 0x83 || c[1] == 0x81) && c[2] == 0xec; }

// The stack bang before a compiled method's frame: mov [rsp - n], eax (89 84 24 disp32 with a
// negative disp32). A positive one is an ordinary spill into the built frame.
bool is_stack_bang(const uint8_t* c) { return c[0] == 0x89 && c[1] == 0x84 && c[2] == 0x24 && (c[6] & 0x80) != 0; }

// The poll on return, after the frame is gone: cmp rsp, [r15 + disp8/disp32] (49 3b 67 / a7)
// then ja rel32 (0f 87); returns that instruction's length, 0 if pc is not one.
int return_poll_length(const uint8_t* c) {
    if (c[0] != kRexWB || c[1] != 0x3b) return 0;
    if (c[2] == 0x67) return 4;
    if (c[2] == 0xa7) return 7;
    return 0;
}

bool is_ja_then_ret(const uint8_t* c) { return c[0] == 0x0f && c[1] == 0x87 && c[6] == kRet; }

// JDK 11's poll on return, after the frame is gone: mov r10, [r15 + disp32 / disp8] (4d 8b 97 /
// 57), test eax, [r10] (41 85 02), ret. The same poll with the frame still built (a loop's) is
// never followed by ret.
bool is_poll_test_then_ret(const uint8_t* c) { return c[0] == kRexB && c[1] == 0x85 && c[2] == 0x02 && c[3] == kRet; }
bool is_poll_load_then_test(const uint8_t* c) {
    if (c[0] != kRexWRB || c[1] != 0x8b) return false;
    if (c[2] == 0x97) return is_poll_test_then_ret(c + 7);
    if (c[2] == 0x57) return is_poll_test_then_ret(c + 4);
    return false;
}

// The poll stub's instructions: lea r10, [rip + d32]; mov [r15 + d32], r10; jmp rel32 or
// mov r10, imm64 (then jmp r10).
bool is_lea_r10_rip(const uint8_t* c) { return c[0] == 0x4c && c[1] == 0x8d && c[2] == 0x15; }
bool is_store_r10_in_thread(const uint8_t* c) { return c[0] == kRexWRB && c[1] == 0x89 && c[2] == 0x97; }
bool is_far_jump_start(const uint8_t* c) { return c[0] == 0xe9 || (c[0] == kRexWB && c[1] == 0xba); }
constexpr int kLeaBytes = 7, kStoreBytes = 7, kMovImm64Bytes = 10;

}  // namespace

FrameSetup stub_frame_setup_at(uintptr_t pc) {
    const uint8_t* code = reinterpret_cast<const uint8_t*>(pc);
    if (code[0] == kPushRbp || code[0] == kRet || code[0] == kRetImmediate) return FrameSetup::kReturnAddressOnTop;
    if (is_mov_rbp_rsp(code)) return FrameSetup::kSavedFpOnTop;
    return FrameSetup::kBuilt;
}

bool caller_of_calling_stub(const ThreadSlotView&, const Registers&, Registers*) { return false; }

FrameSetup compiled_frame_setup_at(uintptr_t pc) {
    const uint8_t* code = reinterpret_cast<const uint8_t*>(pc);
    if (code[0] == kPushRbp || code[0] == kRet || code[0] == kRetImmediate || is_stack_bang(code)) {
        return FrameSetup::kReturnAddressOnTop;
    }
    const int poll = return_poll_length(code);
    if ((poll > 0 && is_ja_then_ret(code + poll)) || is_ja_then_ret(code) || is_poll_load_then_test(code) ||
        is_poll_test_then_ret(code)) {
        return FrameSetup::kReturnAddressOnTop;
    }
    if (code[0] == kPopRbp || is_mov_rbp_rsp(code) || is_sub_rsp(code)) return FrameSetup::kSavedFpOnTop;
    return FrameSetup::kBuilt;
}

bool in_return_poll_stub(uintptr_t pc, bool bytes_before) {
    const uint8_t* c = reinterpret_cast<const uint8_t*>(pc);
    if (is_lea_r10_rip(c)) return is_store_r10_in_thread(c + kLeaBytes);
    if (is_store_r10_in_thread(c)) {
        return is_far_jump_start(c + kStoreBytes) && (!bytes_before || is_lea_r10_rip(c - kLeaBytes));
    }
    if (!bytes_before) return false;
    const uint8_t* store = c - kStoreBytes;
    if (c[0] == kRexB && c[1] == 0xff && c[2] == 0xe2) {  // jmp r10
        store = c - kMovImm64Bytes - kStoreBytes;
    } else if (!is_far_jump_start(c)) {
        return false;
    }
    return is_store_r10_in_thread(store) && is_lea_r10_rip(store - kLeaBytes);
}

bool caller_of_unbuilt_frame(const void* ucontext, FrameSetup setup, const ThreadSlotView& thread, Registers* caller) {
    const Registers at_signal = read_registers(ucontext);
    const uintptr_t* stack = reinterpret_cast<const uintptr_t*>(at_signal.sp);
    if (setup == FrameSetup::kReturnAddressOnTop && thread.holds(at_signal.sp, sizeof(uintptr_t))) {
        *caller = Registers{stack[0] - 1, at_signal.sp + sizeof(uintptr_t), at_signal.fp};
        return true;
    }
    if (setup == FrameSetup::kSavedFpOnTop && thread.holds(at_signal.sp, 2 * sizeof(uintptr_t))) {
        *caller = Registers{stack[1] - 1, at_signal.sp + 2 * sizeof(uintptr_t), stack[0]};
        return true;
    }
    return false;
}

void write_registers(void* ucontext, const Registers& registers) {
    mcontext_t& m = static_cast<ucontext_t*>(ucontext)->uc_mcontext;
    m.gregs[REG_RIP] = static_cast<greg_t>(registers.pc);
    m.gregs[REG_RSP] = static_cast<greg_t>(registers.sp);
    m.gregs[REG_RBP] = static_cast<greg_t>(registers.fp);
}

}  // namespace stackreq

#else
#error "stackreq: arch_x86_64.cpp is for x86_64 Linux; CMakeLists.txt picks arch_<cpu>.cpp by CMAKE_SYSTEM_PROCESSOR"
#endif
