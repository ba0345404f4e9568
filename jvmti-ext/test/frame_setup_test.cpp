// Reading how far a frame is set up from the instructions at a PC (arch_x86_64.cpp), on the
// byte sequences HotSpot's stubs and compiled methods use.
#include <cstdint>

#include "check.h"
#include "native_unwind/arch.h"

using namespace stackreq;

namespace {

FrameSetup stub_at(const uint8_t* code) { return stub_frame_setup_at(reinterpret_cast<uintptr_t>(code)); }
FrameSetup compiled_at(const uint8_t* code) { return compiled_frame_setup_at(reinterpret_cast<uintptr_t>(code)); }

}  // namespace

int main() {
    // A leaf stub: push rbp; mov rbp, rsp; mov rax, rdi; vzeroupper; leave; ret (+ padding)
    const uint8_t stub[32] = {0x55, 0x48, 0x8b, 0xec, 0x48, 0x89, 0xf8, 0xc5, 0xf8, 0x77, 0xc9, 0xc3};
    CHECK(stub_at(stub + 0) == FrameSetup::kReturnAddressOnTop);
    CHECK(stub_at(stub + 1) == FrameSetup::kSavedFpOnTop);
    CHECK(stub_at(stub + 4) == FrameSetup::kBuilt);
    CHECK(stub_at(stub + 7) == FrameSetup::kBuilt);
    CHECK(stub_at(stub + 10) == FrameSetup::kBuilt);  // leave: the frame is still there
    CHECK(stub_at(stub + 11) == FrameSetup::kReturnAddressOnTop);

    const uint8_t gcc_style[16] = {0x55, 0x48, 0x89, 0xe5, 0xc2, 0x08, 0x00};
    CHECK(stub_at(gcc_style + 1) == FrameSetup::kSavedFpOnTop);
    CHECK(stub_at(gcc_style + 4) == FrameSetup::kReturnAddressOnTop);  // ret imm16

    // Neither the REX prefix nor the opcode alone is a frame pointer move.
    const uint8_t other_moves[16] = {0x48, 0x8b, 0xc4, 0x48, 0x89, 0xe4};
    CHECK(stub_at(other_moves) == FrameSetup::kBuilt);
    CHECK(stub_at(other_moves + 3) == FrameSetup::kBuilt);

    // A C2 method as JDK 17 and 25 emit it: stack bang; push rbp; sub rsp, 0x40; body;
    // add rsp, 0x40; pop rbp; cmp rsp, [r15 + 0x28]; ja slow; ret
    const uint8_t method[48] = {
        0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,  //  0 mov [rsp - 0x14000], eax
        0x55,                                      //  7 push rbp
        0x48, 0x83, 0xec, 0x40,                    //  8 sub rsp, 0x40
        0x44, 0x89, 0x0a,                          // 12 mov [rdx], r9d
        0x48, 0x83, 0xc4, 0x40,                    // 15 add rsp, 0x40
        0x5d,                                      // 19 pop rbp
        0x49, 0x3b, 0x67, 0x28,                    // 20 cmp rsp, [r15 + 0x28]
        0x0f, 0x87, 0x30, 0x03, 0x00, 0x00,        // 24 ja slow
        0xc3,                                      // 30 ret
    };
    CHECK(compiled_at(method + 0) == FrameSetup::kReturnAddressOnTop);
    CHECK(compiled_at(method + 7) == FrameSetup::kReturnAddressOnTop);
    CHECK(compiled_at(method + 8) == FrameSetup::kSavedFpOnTop);
    CHECK(compiled_at(method + 12) == FrameSetup::kBuilt);
    CHECK(compiled_at(method + 15) == FrameSetup::kBuilt);  // add rsp: not deallocated yet
    CHECK(compiled_at(method + 19) == FrameSetup::kSavedFpOnTop);
    CHECK(compiled_at(method + 20) == FrameSetup::kReturnAddressOnTop);
    CHECK(compiled_at(method + 24) == FrameSetup::kReturnAddressOnTop);
    CHECK(compiled_at(method + 30) == FrameSetup::kReturnAddressOnTop);

    // The poll with a 32-bit displacement (49 3b a7 disp32); a compare that is no poll.
    const uint8_t poll32[32] = {0x49, 0x3b, 0xa7, 0x40, 0x03, 0x00, 0x00, 0x0f, 0x87, 0x14, 0x2a, 0x00, 0x00, 0xc3};
    CHECK(compiled_at(poll32) == FrameSetup::kReturnAddressOnTop);
    const uint8_t not_a_poll[32] = {0x49, 0x3b, 0x67, 0x28, 0x0f, 0x87, 0x30, 0x03, 0x00, 0x00, 0x90};
    CHECK(compiled_at(not_a_poll) == FrameSetup::kBuilt);  // ja not followed by ret
    // JDK 11's return poll after the frame is gone: pop rbp; mov r10, [r15 + 0x108]; test eax, [r10]; ret.
    const uint8_t jdk11_return[32] = {0x5d, 0x4d, 0x8b, 0x97, 0x08, 0x01, 0x00, 0x00, 0x41, 0x85, 0x02, 0xc3};
    CHECK(compiled_at(jdk11_return) == FrameSetup::kSavedFpOnTop);
    CHECK(compiled_at(jdk11_return + 1) == FrameSetup::kReturnAddressOnTop);
    CHECK(compiled_at(jdk11_return + 8) == FrameSetup::kReturnAddressOnTop);
    CHECK(compiled_at(jdk11_return + 11) == FrameSetup::kReturnAddressOnTop);
    const uint8_t jdk11_return8[32] = {0x4d, 0x8b, 0x57, 0x28, 0x41, 0x85, 0x02, 0xc3};
    CHECK(compiled_at(jdk11_return8) == FrameSetup::kReturnAddressOnTop);
    // The same poll in a loop, the frame built: no ret after it.
    const uint8_t jdk11_loop_poll[32] = {0x4d, 0x8b, 0x97, 0x08, 0x01, 0x00, 0x00, 0x41, 0x85, 0x02, 0xeb, 0xe0};
    CHECK(compiled_at(jdk11_loop_poll) == FrameSetup::kBuilt);
    CHECK(compiled_at(jdk11_loop_poll + 7) == FrameSetup::kBuilt);
    // A spill to a stack slot has the stack bang's opcode, but a positive displacement.
    const uint8_t spill[16] = {0x89, 0x84, 0x24, 0x88, 0x00, 0x00, 0x00};
    CHECK(compiled_at(spill) == FrameSetup::kBuilt);
    // C2's out-of-line return poll after the body (frame popped): lea r10, [rip + d32];
    // mov [r15 + 0x3f0], r10; jmp rel32 (then, in the far form, mov r10, imm64; jmp r10).
    const uint8_t poll_stub[64] = {
        0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,  //  0 the body's end
        0x4c, 0x8d, 0x15, 0xf0, 0xff, 0xff, 0xff,                    // 10 lea r10, [rip - 16]
        0x4d, 0x89, 0x97, 0xf0, 0x03, 0x00, 0x00,                    // 17 mov [r15 + 0x3f0], r10
        0xe9, 0x10, 0x20, 0x30, 0x00,                                // 24 jmp rel32
        0x4c, 0x8d, 0x15, 0xe0, 0xff, 0xff, 0xff,                    // 29 lea r10, [rip - 32]
        0x4d, 0x89, 0x97, 0xf0, 0x03, 0x00, 0x00,                    // 36 mov [r15 + 0x3f0], r10
        0x49, 0xba, 1, 2, 3, 4, 5, 6, 7, 0,                          // 43 mov r10, imm64
        0x41, 0xff, 0xe2,                                            // 53 jmp r10
    };
    const auto poll_at = [&](int offset, bool before) {
        return in_return_poll_stub(reinterpret_cast<uintptr_t>(poll_stub + offset), before);
    };
    CHECK(poll_at(10, false) && poll_at(10, true) && poll_at(17, false) && poll_at(17, true));
    CHECK(poll_at(24, true) && !poll_at(24, false));
    CHECK(poll_at(29, true) && poll_at(36, true) && poll_at(43, true) && poll_at(53, true));
    CHECK(!poll_at(53, false) && !poll_at(0, false) && !poll_at(19, true) && !poll_at(25, true));
    // A store of r10 into the thread without the lea before it is not the stub.
    const uint8_t tlab_store[40] = {0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
                                    0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
                                    0x4d, 0x89, 0x97, 0x70, 0x01, 0x00, 0x00, 0xe9, 0x00, 0x01, 0x00, 0x00};
    CHECK(!in_return_poll_stub(reinterpret_cast<uintptr_t>(tlab_store + 24), true));
    CHECK(!in_return_poll_stub(reinterpret_cast<uintptr_t>(tlab_store + 31), true));
    // Stub-only readings do not apply to compiled code and vice versa.
    CHECK(stub_at(method + 19) == FrameSetup::kBuilt);
    CHECK(stub_at(method + 8) == FrameSetup::kBuilt);
    return 0;
}
