#include "physical_walk.h"

#include <cstring>

#include "code_heaps.h"
#include "code_pages.h"
#include "hotspot_threads.h"
#include "vm_structs.h"

namespace stackreq {

std::atomic<uintptr_t> PhysicalWalk::interpreter_start_{0};
std::atomic<uintptr_t> PhysicalWalk::interpreter_end_{0};

namespace {

// Where the calling thread's last Java frame is: its JavaThread is its JNIEnv minus
// g_jni_in_thread, the frame anchor's fields at these offsets from it (0: not known).
intptr_t g_jni_in_thread = 0;
uint64_t g_anchor_sp = 0, g_anchor_pc = 0, g_anchor_fp = 0;
std::atomic<bool> g_anchor_known{false};

constexpr uintptr_t kWord = sizeof(uintptr_t);
// Interpreted frame slots, in words from its frame pointer (frame_x86.hpp's layout).
constexpr intptr_t kSavedFp = 0, kReturnAddress = 1, kSenderSp = -1;

// Whether [address, address + bytes) is aligned and inside the thread's stack.
bool on_stack(const ThreadSlotView& thread, uintptr_t address, uintptr_t bytes) {
    return address % kWord == 0 && address >= thread.stack_low && address + bytes <= thread.stack_high &&
           address + bytes > address;
}

uintptr_t word_at(uintptr_t base, intptr_t index) {
    return reinterpret_cast<const uintptr_t*>(base)[index];
}

}  // namespace

bool PhysicalWalk::init(JNIEnv* jni, jthread current, std::string* error) {
    HotSpotThreads threads;
    if (!threads.init(jni, current, error)) return false;
    VmStructs vm;
    uint64_t anchor = 0, sp = 0, pc = 0, fp = 0;
    if (!vm.init() || !vm.field_offset("JavaThread", "_anchor", &anchor) ||
        !vm.field_offset("JavaFrameAnchor", "_last_Java_sp", &sp) ||
        !vm.field_offset("JavaFrameAnchor", "_last_Java_pc", &pc) ||
        !vm.field_offset("JavaFrameAnchor", "_last_Java_fp", &fp)) {
        *error = "gHotSpotVMStructs has no JavaThread::_anchor with JavaFrameAnchor::_last_Java_sp, _pc and _fp";
        return false;
    }
    g_jni_in_thread = threads.jni_environment_offset();
    g_anchor_sp = anchor + sp;
    g_anchor_pc = anchor + pc;
    g_anchor_fp = anchor + fp;
    g_anchor_known.store(true, std::memory_order_release);
    return true;
}

void PhysicalWalk::on_generated(const char* name, uintptr_t start, uintptr_t size) {
    if (std::strcmp(name, "Interpreter") != 0) return;
    interpreter_end_.store(0, std::memory_order_release);
    interpreter_start_.store(start, std::memory_order_release);
    interpreter_end_.store(start + size, std::memory_order_release);
}

bool PhysicalWalk::in_interpreter(uintptr_t pc) {
    return pc >= interpreter_start_.load(std::memory_order_acquire) &&
           pc < interpreter_end_.load(std::memory_order_acquire);
}

int32_t PhysicalWalk::walk(const ThreadSlotView& thread, const Registers& top, uintptr_t* pcs, int32_t max,
                           bool* from_anchor) {
    *from_anchor = false;
    if (thread.stack_high == 0) return 0;
    if (in_interpreter(top.pc) || (CodePages::contains(top.pc, 1) && CodeHeaps::frame_words_at(top.pc) != 0)) {
        return walk_from(thread, top, pcs, max);
    }
    Registers last{};
    if (!last_java_frame(thread, &last)) return 0;
    *from_anchor = true;
    return walk_from(thread, last, pcs, max);
}

// The anchor is the calling thread's own: no other thread writes it, and its stack pointer is
// set after the PC and the frame pointer and cleared before them, so a non-zero one comes
// with the others of the same frame.
bool PhysicalWalk::last_java_frame(const ThreadSlotView& thread, Registers* out) {
    if (!g_anchor_known.load(std::memory_order_acquire) || thread.jni == nullptr) return false;
    const uintptr_t java_thread = reinterpret_cast<uintptr_t>(thread.jni) - static_cast<uintptr_t>(g_jni_in_thread);
    const uintptr_t sp = *reinterpret_cast<const volatile uintptr_t*>(java_thread + g_anchor_sp);
    if (sp == 0 || !on_stack(thread, sp - kWord, kWord)) return false;
    uintptr_t pc = *reinterpret_cast<const volatile uintptr_t*>(java_thread + g_anchor_pc);
    // Without a recorded PC the frame's PC is the return address its call into the VM pushed.
    if (pc == 0) pc = word_at(sp, -1);
    *out = Registers{pc, sp, *reinterpret_cast<const volatile uintptr_t*>(java_thread + g_anchor_fp)};
    return true;
}

int32_t PhysicalWalk::walk_from(const ThreadSlotView& thread, const Registers& top, uintptr_t* pcs, int32_t max) {
    uintptr_t pc = top.pc, fp = top.fp;
    // The unextended stack pointer: where a compiled frame starts. Below an interpreted callee
    // it is the sender's stack pointer the interpreter saved (the callee's arguments, which an
    // adapter may have pushed onto the caller's frame, lie above it).
    uintptr_t sp = top.sp;
    int32_t count = 0;
    while (count < max && pc != 0) {
        uintptr_t caller_sp = 0, caller_fp = 0, caller_pc = 0;
        if (in_interpreter(pc)) {
            if (fp < sp || !on_stack(thread, fp - kWord, 3 * kWord)) break;
            pcs[count++] = pc;
            caller_sp = word_at(fp, kSenderSp);
            caller_fp = word_at(fp, kSavedFp);
            caller_pc = word_at(fp, kReturnAddress);
            if (caller_sp < fp + 2 * kWord) break;
        } else {
            const uint32_t words = CodeHeaps::frame_words_at(pc);
            if (words == 0) break;
            const uintptr_t sender_sp = sp + words * kWord;
            if (!on_stack(thread, sender_sp - 2 * kWord, 2 * kWord)) break;
            pcs[count++] = pc;
            caller_sp = sender_sp;
            caller_fp = word_at(sender_sp, -2);
            caller_pc = word_at(sender_sp, -1);
        }
        if (caller_sp <= sp || caller_sp > thread.stack_high || caller_sp % kWord != 0) break;
        sp = caller_sp;
        fp = caller_fp;
        pc = caller_pc;
    }
    return count;
}

void PhysicalWalk::reset_for_test() {
    interpreter_start_.store(0, std::memory_order_release);
    interpreter_end_.store(0, std::memory_order_release);
}

}  // namespace stackreq
