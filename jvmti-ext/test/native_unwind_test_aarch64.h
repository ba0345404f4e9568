// aarch64's part of native_unwind_test.cpp: two spinning leaves in assembly (one without unwind
// rows, as libjvm's copy routines are, one with them); neither stores x30, so their return
// address is only in lr when the signal comes. And where a function's caller is at its entry:
// bl left the return address in x30 and sp as it was. The leaves spin until g_leaf_released is set.
#pragma once

#include <cstdint>

#include "native_unwind/arch.h"
#include "native_unwind/eh_frame.h"

extern "C" void nocfi_leaf();
extern "C" void cfi_leaf();
asm(".pushsection .text\n"
    ".globl nocfi_leaf\n"
    ".type nocfi_leaf, %function\n"
    "nocfi_leaf:\n"
    "1: yield\n"
    "   adrp x9, g_leaf_released\n"
    "   ldr w9, [x9, :lo12:g_leaf_released]\n"
    "   cbz w9, 1b\n"
    "   ret\n"
    ".size nocfi_leaf, .-nocfi_leaf\n"
    ".globl cfi_leaf\n"
    ".type cfi_leaf, %function\n"
    "cfi_leaf:\n"
    "   .cfi_startproc\n"
    "1: yield\n"
    "   adrp x9, g_leaf_released\n"
    "   ldr w9, [x9, :lo12:g_leaf_released]\n"
    "   cbz w9, 1b\n"
    "   ret\n"
    "   .cfi_endproc\n"
    ".size cfi_leaf, .-cfi_leaf\n"
    ".popsection\n");
constexpr uintptr_t kLeafBytes = 20;

inline stackreq::Registers at_function_entry(uintptr_t pc, uintptr_t* words, uintptr_t return_address) {
    stackreq::Registers registers{pc, reinterpret_cast<uintptr_t>(words), 0};
    registers.lr = return_address;
    return registers;
}
constexpr int32_t kEntryCfaOffset = 0;
constexpr int16_t kEntryReturnAddressOffset = stackreq::kReturnAddressInRegister;
