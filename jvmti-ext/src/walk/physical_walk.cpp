#include "walk/physical_walk.h"

#include <algorithm>
#include <cstring>

#include "hotspot/code_heaps.h"
#include "hotspot/code_pages.h"
#include "hotspot/hotspot_threads.h"
#include "hotspot/vm_structs.h"

namespace stackreq {

std::atomic<uintptr_t> PhysicalWalk::interpreter_start_{0};
std::atomic<uintptr_t> PhysicalWalk::interpreter_end_{0};

namespace {

// Where the calling thread's last Java frame is: its JavaThread is its JNIEnv minus
// g_jni_in_thread, its frame anchor (a JavaFrameAnchor) at g_thread_anchor in it, and the
// anchor's fields at g_last_sp, g_last_pc and g_last_fp.
intptr_t g_jni_in_thread = 0;
uint64_t g_thread_anchor = 0, g_last_sp = 0, g_last_pc = 0, g_last_fp = 0;
std::atomic<bool> g_anchor_known{false};
// JavaThread::_thread_state (a JavaThreadState, an int) and its value _thread_in_native;
// g_state_known: both were found.
uint64_t g_thread_state = 0;
int32_t g_in_native = 0;
bool g_state_known = false;
// An entry frame (the JVM's call stub, which a call from C into Java passes through) is the
// frame whose callee returns to this address; the JavaCallWrapper at its fp + kCallWrapperSlot
// words keeps, in a frame anchor at g_wrapper_anchor, the last Java frame below it (0: none).
uintptr_t g_call_stub_return = 0;
uint64_t g_wrapper_anchor = 0;
constexpr intptr_t kCallWrapper = kCallWrapperSlot;

constexpr uintptr_t kWord = sizeof(uintptr_t);
// Interpreted frame slots, in words from its frame pointer (the frame record and the sender SP
// lie there on x86_64 and aarch64 alike).
constexpr intptr_t kSavedFp = 0, kReturnAddress = 1, kSenderSp = -1;

uintptr_t word_at(uintptr_t base, intptr_t index) { return reinterpret_cast<const uintptr_t*>(base)[index]; }

}  // namespace

bool PhysicalWalk::init(JNIEnv* jni, jthread current, std::string* error) {
    HotSpotThreads threads;
    if (!threads.init(jni, current, error)) return false;
    VmStructs vm;
    if (!vm.init() || !vm.field_offset("JavaThread", "_anchor", &g_thread_anchor) ||
        !vm.field_offset("JavaFrameAnchor", "_last_Java_sp", &g_last_sp) ||
        !vm.field_offset("JavaFrameAnchor", "_last_Java_pc", &g_last_pc) ||
        !vm.field_offset("JavaFrameAnchor", "_last_Java_fp", &g_last_fp)) {
        *error = "gHotSpotVMStructs has no JavaThread::_anchor with JavaFrameAnchor::_last_Java_sp, _pc and _fp";
        return false;
    }
    uintptr_t call_stub_return = 0;
    if (vm.static_address("StubRoutines", "_call_stub_return_address", &call_stub_return) &&
        vm.field_offset("JavaCallWrapper", "_anchor", &g_wrapper_anchor)) {
        g_call_stub_return = *reinterpret_cast<const uintptr_t*>(call_stub_return);
    }
    g_state_known = vm.field_offset("JavaThread", "_thread_state", &g_thread_state) &&
                    vm.int_constant("_thread_in_native", &g_in_native);
    g_jni_in_thread = threads.jni_environment_offset();
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

bool PhysicalWalk::is_call_stub_return(uintptr_t pc) { return pc != 0 && pc == g_call_stub_return; }

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

bool PhysicalWalk::without_java_frames(const ThreadSlotView& thread) {
    if (!g_anchor_known.load(std::memory_order_acquire) || thread.jni == nullptr) return false;
    const uintptr_t java_thread = reinterpret_cast<uintptr_t>(thread.jni) - static_cast<uintptr_t>(g_jni_in_thread);
    return *reinterpret_cast<const volatile uintptr_t*>(java_thread + g_thread_anchor + g_last_sp) == 0;
}

// The anchor is the calling thread's own: no other thread writes it, and its stack pointer is
// set after the PC and the frame pointer and cleared before them, so a non-zero one comes
// with the others of the same frame.
bool PhysicalWalk::last_java_frame(const ThreadSlotView& thread, Registers* out) {
    if (!g_anchor_known.load(std::memory_order_acquire) || thread.jni == nullptr) return false;
    const uintptr_t java_thread = reinterpret_cast<uintptr_t>(thread.jni) - static_cast<uintptr_t>(g_jni_in_thread);
    return anchored_frame(thread, java_thread + g_thread_anchor, out);
}

bool PhysicalWalk::in_native_code(const ThreadSlotView& thread) {
    if (!g_anchor_known.load(std::memory_order_acquire) || !g_state_known || thread.jni == nullptr) return false;
    const uintptr_t java_thread = reinterpret_cast<uintptr_t>(thread.jni) - static_cast<uintptr_t>(g_jni_in_thread);
    return *reinterpret_cast<const volatile int32_t*>(java_thread + g_thread_state) == g_in_native;
}

bool PhysicalWalk::last_java_frame_in_blob(const ThreadSlotView& thread, uintptr_t blob_pc, Registers* out) {
    if (!g_anchor_known.load(std::memory_order_acquire) || thread.jni == nullptr) return false;
    const uintptr_t java_thread = reinterpret_cast<uintptr_t>(thread.jni) - static_cast<uintptr_t>(g_jni_in_thread);
    return anchored_frame(thread, java_thread + g_thread_anchor, out, blob_pc);
}

bool PhysicalWalk::anchored_frame(const ThreadSlotView& thread, uintptr_t anchor, Registers* out,
                                  uintptr_t unset_pc) {
    const uintptr_t sp = *reinterpret_cast<const volatile uintptr_t*>(anchor + g_last_sp);
    if (sp == 0 || !thread.holds(sp - kWord, kWord)) return false;
    uintptr_t pc = *reinterpret_cast<const volatile uintptr_t*>(anchor + g_last_pc);
    // Without a recorded PC the frame's PC is the return address its call into the VM pushed;
    // where a call pushes none, such an anchor is not walkable.
    if (pc == 0 && unset_pc == 0 && !kCallPushesReturnAddress) return false;
    if (pc == 0) pc = unset_pc != 0 ? unset_pc : word_at(sp, -1);
    *out = Registers{pc, sp, *reinterpret_cast<const volatile uintptr_t*>(anchor + g_last_fp)};
    return true;
}

bool PhysicalWalk::below_entry_frame(const ThreadSlotView& thread, uintptr_t fp, Registers* out, bool* none) {
    *none = false;
    if (g_wrapper_anchor == 0 || !thread.holds(fp + kCallWrapper * static_cast<intptr_t>(kWord), kWord)) {
        return false;
    }
    const uintptr_t wrapper = word_at(fp, kCallWrapper);
    // The JavaCallWrapper lives in the frame of the C++ code that called the stub, above it.
    const uintptr_t anchor = wrapper + g_wrapper_anchor;
    if (wrapper <= fp || !thread.holds(anchor, std::max(g_last_sp, std::max(g_last_pc, g_last_fp)) + kWord)) {
        return false;
    }
    if (*reinterpret_cast<const volatile uintptr_t*>(anchor + g_last_sp) == 0) {
        *none = true;
        return false;
    }
    return anchored_frame(thread, anchor, out);
}

int32_t PhysicalWalk::walk_java(const ThreadSlotView& thread, const Registers& start, CallFrame* frames,
                               uintptr_t* values, int32_t max, bool* complete, uintptr_t* stopped_at) {
    *complete = false;
    *stopped_at = start.pc;
    if (thread.stack_high == 0) return 0;
    return walk_from(thread, start, values, max, frames, complete, stopped_at);
}

int32_t PhysicalWalk::walk_from(const ThreadSlotView& thread, const Registers& top, uintptr_t* pcs, int32_t max,
                                CallFrame* own, bool* complete, uintptr_t* stopped_at) {
    uintptr_t pc = top.pc, fp = top.fp;
    // The unextended stack pointer: where a compiled frame starts. Below an interpreted callee
    // it is the sender's stack pointer the interpreter saved (the callee's arguments, which an
    // adapter may have pushed onto the caller's frame, lie above it).
    uintptr_t sp = top.sp;
    // The lowest address the frame may occupy: each caller's lies above its callee's. It is sp
    // but where an interpreted frame's sender SP may lie below the frame (kSenderSpAboveInterpretedFrame).
    uintptr_t floor = top.sp;
    int32_t count = 0;
    while (count < max && pc != 0) {
        uintptr_t caller_sp = 0, caller_fp = 0, caller_pc = 0, caller_floor = 0;
        if (pc == g_call_stub_return && g_call_stub_return != 0) {
            // No frame of its own for the frame types: the walk goes on below the C frames the
            // call into Java came from, at the last Java frame before that call.
            Registers below{};
            bool none = false;
            if (!below_entry_frame(thread, fp, &below, &none) || below.sp <= floor) {
                if (none && complete != nullptr) *complete = true;
                break;
            }
            sp = below.sp;
            floor = below.sp;
            fp = below.fp;
            pc = below.pc;
            continue;
        }
        if (in_interpreter(pc)) {
            if (fp < floor || !thread.holds(fp - kWord, 3 * kWord)) break;
            if (own != nullptr) {
                if (!thread.holds(fp + kBcpSlot * static_cast<intptr_t>(kWord), (1 - kBcpSlot) * kWord)) break;
                own[count] = CallFrame(kInterpretedFrame, reinterpret_cast<jmethodID>(word_at(fp, kMethodSlot)));
                pc = word_at(fp, kBcpSlot);
            }
            pcs[count++] = pc;
            caller_sp = word_at(fp, kSenderSp);
            caller_fp = word_at(fp, kSavedFp);
            caller_pc = word_at(fp, kReturnAddress);
            // The interpreter's method handle linkers (linkToStatic, linkToVirtual, ...) drop the
            // trailing MemberName argument and push the return address again into its slot, so a
            // method they enter saves as its sender SP the word of its own return address. Its
            // caller is interpreted, found by its frame pointer alone, and its frame starts above
            // this one's record (HotSpot's sender_sp()).
            if (kSenderSpAboveInterpretedFrame && caller_sp == fp + kReturnAddress * static_cast<intptr_t>(kWord) &&
                in_interpreter(caller_pc)) {
                caller_sp = fp + 2 * kWord;
            }
            caller_floor = kSenderSpAboveInterpretedFrame ? caller_sp : fp + 2 * kWord;
            if (kSenderSpAboveInterpretedFrame && caller_sp < fp + 2 * kWord) break;
        } else {
            uintptr_t method = 0;
            // Below an interpreted callee the frame starts above the callee's frame record.
            if (sp < floor) break;
            const uint32_t words = CodeHeaps::frame_words_and_method_at(pc, own != nullptr ? &method : nullptr);
            if (words == 0) break;
            const uintptr_t sender_sp = sp + words * kWord;
            if (!thread.holds(sender_sp - 2 * kWord, 2 * kWord)) break;
            if (own != nullptr) own[count] = CallFrame(kCompiledFrame, reinterpret_cast<jmethodID>(method));
            pcs[count++] = pc;
            caller_sp = sender_sp;
            caller_floor = sender_sp;
            caller_fp = word_at(sender_sp, -2);
            caller_pc = word_at(sender_sp, -1);
        }
        if (caller_floor <= floor || caller_sp > thread.stack_high || caller_sp % kWord != 0) break;
        sp = caller_sp;
        floor = caller_floor;
        fp = caller_fp;
        pc = caller_pc;
    }
    if (stopped_at != nullptr) *stopped_at = pc;
    return count;
}

void PhysicalWalk::reset_for_test() {
    interpreter_start_.store(0, std::memory_order_release);
    interpreter_end_.store(0, std::memory_order_release);
}

}  // namespace stackreq
