#include "own_walk.h"

#include "arch.h"
#include "code_heaps.h"
#include "code_pages.h"
#include "physical_walk.h"
#include "stack_walker.h"
#include "stub_code.h"

namespace stackreq {

namespace {

// How many bytes of code at a PC the frame-setup decoding reads (arch.h).
constexpr uintptr_t kInstructionBytes = 16;
constexpr uintptr_t kWord = sizeof(uintptr_t);

std::atomic<uint64_t> g_walked{0}, g_left{0}, g_cut_short{0}, g_left_failed{0};

// The caller of a compiled frame that is not set up (FrameSetup); false when sp is not readable.
bool caller_of_unbuilt(const ThreadSlotView& thread, const Registers& at, FrameSetup setup, Registers* out) {
    const uintptr_t* stack = reinterpret_cast<const uintptr_t*>(at.sp);
    if (setup == FrameSetup::kReturnAddressOnTop && thread.holds(at.sp, kWord)) {
        *out = Registers{stack[0], at.sp + kWord, at.fp};
        return true;
    }
    if (setup == FrameSetup::kSavedFpOnTop && thread.holds(at.sp, 2 * kWord)) {
        *out = Registers{stack[1], at.sp + 2 * kWord, stack[0]};
        return true;
    }
    return false;
}

}  // namespace

uint64_t OwnWalk::walked() { return g_walked.load(std::memory_order_relaxed); }
uint64_t OwnWalk::left_to_async_get_call_trace() { return g_left.load(std::memory_order_relaxed); }
uint64_t OwnWalk::cut_short() { return g_cut_short.load(std::memory_order_relaxed); }
uint64_t OwnWalk::left_and_failed() { return g_left_failed.load(std::memory_order_relaxed); }
void OwnWalk::note_left_walk(int32_t frame_count) {
    if (frame_count <= 0) g_left_failed.fetch_add(1, std::memory_order_relaxed);
}

int32_t OwnWalk::walk(const ThreadSlotView& thread, void* ucontext, RequestSlot* slot, int32_t max,
                      bool* truncated) {
    const int32_t count = walk_frames(thread, ucontext, slot, max, truncated);
    (count > 0 ? g_walked : g_left).fetch_add(1, std::memory_order_relaxed);
    return count;
}

int32_t OwnWalk::walk_frames(const ThreadSlotView& thread, void* ucontext, RequestSlot* slot, int32_t max,
                             bool* truncated) {
    *truncated = false;
    slot->top_bcp = 0;
    slot->top_unbuilt = false;
    slot->physical_from_anchor = false;
    if (thread.stack_high == 0 || max <= 1) return 0;
    ucontext = StackWalker::context_of_interrupted_code(thread, ucontext);
    const Registers at_signal = read_registers(ucontext);
    if (!thread.holds(at_signal.sp, kWord)) return 0;
    Registers start = at_signal;
    int32_t count = 0;
    const uintptr_t pc = at_signal.pc;
    uintptr_t method = 0;
    if (PhysicalWalk::in_interpreter(pc)) {
        slot->top_bcp = read_interpreter_bcp(ucontext);
    } else if (CodePages::contains(pc, kInstructionBytes) && !StubCode::contains(pc) &&
               CodeHeaps::frame_words_and_method_at(pc, &method) != 0) {
        const FrameSetup setup = compiled_frame_setup_at(pc);
        if (setup != FrameSetup::kBuilt) {
            // The method is being entered or left: it is the top frame, its caller's registers
            // are where the return address lies.
            if (!caller_of_unbuilt(thread, at_signal, setup, &start)) return 0;
            slot->frames[0] = CallFrame(kCompiledFrame, reinterpret_cast<jmethodID>(method));
            slot->physical_pcs[0] = pc;
            slot->top_unbuilt = true;
            count = 1;
        }
    } else if (CodePages::contains(pc, 1) || StubCode::contains(pc) || !PhysicalWalk::last_java_frame(thread, &start)) {
        // In Java code the walk cannot size (a stub), or a thread without a last Java frame.
        return 0;
    } else {
        slot->physical_from_anchor = true;
    }
    bool complete = false;
    count += PhysicalWalk::walk_java(thread, start, slot->frames + count, slot->physical_pcs + count, max - count,
                                     &complete);
    if (complete) return count;
    if (count < max) {
        g_cut_short.fetch_add(1, std::memory_order_relaxed);
        return 0;
    }
    *truncated = true;
    return count;
}

}  // namespace stackreq
