// x86_64's part of native_unwind_test.cpp: two spinning leaves in assembly (one without unwind
// rows, as libjvm's copy routines are, one with them), and where a function's caller is at its
// entry. The leaves spin until g_leaf_released is set.
#pragma once

#include <cstdint>

#include "native_unwind/arch.h"

extern "C" void nocfi_leaf();
extern "C" void cfi_leaf();
asm(".pushsection .text\n"
    ".globl nocfi_leaf\n"
    ".type nocfi_leaf, @function\n"
    "nocfi_leaf:\n"
    "1: pause\n"
    "   cmpl $0, g_leaf_released(%rip)\n"
    "   je 1b\n"
    "   ret\n"
    ".size nocfi_leaf, .-nocfi_leaf\n"
    ".globl cfi_leaf\n"
    ".type cfi_leaf, @function\n"
    "cfi_leaf:\n"
    "   .cfi_startproc\n"
    "1: pause\n"
    "   cmpl $0, g_leaf_released(%rip)\n"
    "   je 1b\n"
    "   ret\n"
    "   .cfi_endproc\n"
    ".size cfi_leaf, .-cfi_leaf\n"
    ".popsection\n");
constexpr uintptr_t kLeafBytes = 12;

// At a function's entry the return address is on top of the stack (words[0]) and the CFA is
// just above it.
inline stackreq::Registers at_function_entry(uintptr_t pc, uintptr_t* words, uintptr_t return_address) {
    words[0] = return_address;
    return stackreq::Registers{pc, reinterpret_cast<uintptr_t>(words), 0};
}
constexpr int32_t kEntryCfaOffset = 8;
constexpr int16_t kEntryReturnAddressOffset = -8;
