// walker=vmstructs, the parts that run without a JVM: the VMStructs walk records interpreted frames'
// Method* and bytecode pointer slots and compiled frames' PCs through a stack built here with
// HotSpot's interpreted frame layout of the target (native_unwind/arch.h), and tells a walk that reached the thread's first
// entry frame from one cut short; CompiledMethods gives each compiled PC's frames from JVMTI
// records built the way CompiledMethodLoad lays them out.
#include "emitter/compiled_methods.h"

#include <jvmticmlr.h>

#include <vector>

#include "check.h"
#include "emitter/java_frames.h"
#include "walk/physical_walk.h"

using namespace stackreq;

namespace {

constexpr uintptr_t kInterpreter = 0x7e0000000000;
constexpr uintptr_t kStart = 0x7f0000001000;

// A jmethodID points to a word holding its Method* (method_table.h); Method* n is 0x5000 + n.
uintptr_t g_method_words[16];
jmethodID method(uintptr_t n) {
    g_method_words[n] = 0x5000 + n;
    return reinterpret_cast<jmethodID>(&g_method_words[n]);
}

struct FakeStack {
    uintptr_t words[256] = {};

    uintptr_t address(int index) const { return reinterpret_cast<uintptr_t>(&words[index]); }
    // An interpreted frame whose frame pointer is at index, with its Method* and bytecode pointer.
    void frame(int index, uintptr_t saved_fp, uintptr_t return_pc, uintptr_t sender_sp, uintptr_t method,
               uintptr_t bcp) {
        words[index] = saved_fp;
        words[index + 1] = return_pc;
        words[index - 1] = sender_sp;
        words[index + PhysicalWalk::kMethodSlot] = method;
        words[index + PhysicalWalk::kBcpSlot] = bcp;
    }
    ThreadSlotView thread() const {
        ThreadSlotView view{};
        view.stack_low = address(0);
        view.stack_high = address(256);
        return view;
    }
};

void walks_interpreted_frames() {
    PhysicalWalk::on_generated("Interpreter", kInterpreter, 0x10000);
    FakeStack stack;
    stack.frame(20, stack.address(60), kInterpreter + 0x200, stack.address(40), 0x5000, 0x6010);
    stack.frame(60, stack.address(100), kInterpreter + 0x300, stack.address(80), 0x5100, 0x6120);
    stack.frame(100, stack.address(200), 0x1234, stack.address(120), 0x5200, 0x6230);
    CallFrame frames[8];
    uintptr_t values[8] = {};
    bool complete = true;
    uintptr_t stopped_at = 0;
    const Registers top{kInterpreter + 0x100, stack.address(10), stack.address(20)};
    CHECK(PhysicalWalk::walk_java(stack.thread(), top, frames, values, 8, &complete, &stopped_at) == 3);
    // The last frame returns to code nobody knows: not the thread's first entry frame.
    CHECK(!complete && stopped_at == 0x1234);
    CHECK(frames[0].bci_or_marker == kInterpretedFrame && frames[2].bci_or_marker == kInterpretedFrame);
    CHECK(reinterpret_cast<uintptr_t>(frames[0].method) == 0x5000 && values[0] == 0x6010);
    CHECK(reinterpret_cast<uintptr_t>(frames[1].method) == 0x5100 && values[1] == 0x6120);
    CHECK(reinterpret_cast<uintptr_t>(frames[2].method) == 0x5200 && values[2] == 0x6230);
    // At most max frames.
    CHECK(PhysicalWalk::walk_java(stack.thread(), top, frames, values, 2, &complete, &stopped_at) == 2 && !complete);
    // No stack bounds for the thread: nothing.
    CHECK(PhysicalWalk::walk_java(ThreadSlotView{}, top, frames, values, 8, &complete, &stopped_at) == 0 &&
          !complete);
    PhysicalWalk::reset_for_test();
}

// An interpreted caller's machine SP, saved by its interpreted callee, can lie below the callee's
// frame on aarch64 (the callee's frame is built below the caller's expression stack, above its
// machine SP): the walk goes on from the callee's frame record there, and stops on x86_64, where
// the sender SP lies above the frame.
void walks_interpreted_callers_by_frame_record() {
    PhysicalWalk::on_generated("Interpreter", kInterpreter, 0x10000);
    FakeStack stack;
    stack.frame(20, stack.address(60), kInterpreter + 0x200, stack.address(12), 0x5000, 0x6010);
    stack.frame(60, stack.address(100), 0x1234, stack.address(30), 0x5100, 0x6120);
    CallFrame frames[8];
    uintptr_t values[8] = {};
    bool complete = true;
    uintptr_t stopped_at = 0;
    const Registers top{kInterpreter + 0x100, stack.address(10), stack.address(20)};
    const int32_t count = PhysicalWalk::walk_java(stack.thread(), top, frames, values, 8, &complete, &stopped_at);
    if (kSenderSpAboveInterpretedFrame) {
        CHECK(count == 1 && !complete);
    } else {
        CHECK(count == 2 && stopped_at == 0x1234 && reinterpret_cast<uintptr_t>(frames[1].method) == 0x5100 &&
              values[1] == 0x6120);
    }
    // A frame record that does not lie above the callee's is not followed on either.
    stack.frame(20, stack.address(21), kInterpreter + 0x200, stack.address(12), 0x5000, 0x6010);
    CHECK(PhysicalWalk::walk_java(stack.thread(), top, frames, values, 8, &complete, &stopped_at) == 1);
    PhysicalWalk::reset_for_test();
}

// x86_64: a method a method handle linker entered saves the word of its own return address as its
// sender SP (the linker pushed that address again where the trailing MemberName was): below an
// interpreted caller the walk goes on from the caller's frame record; below any other it stops.
void walks_past_methods_entered_by_method_handle_linkers() {
    if (!kSenderSpAboveInterpretedFrame) return;
    PhysicalWalk::on_generated("Interpreter", kInterpreter, 0x10000);
    FakeStack stack;
    stack.frame(20, stack.address(60), kInterpreter + 0x200, stack.address(21), 0x5000, 0x6010);
    stack.frame(60, stack.address(100), 0x1234, stack.address(80), 0x5100, 0x6120);
    CallFrame frames[8];
    uintptr_t values[8] = {};
    bool complete = true;
    uintptr_t stopped_at = 0;
    const Registers top{kInterpreter + 0x100, stack.address(10), stack.address(20)};
    CHECK(PhysicalWalk::walk_java(stack.thread(), top, frames, values, 8, &complete, &stopped_at) == 2);
    CHECK(stopped_at == 0x1234 && reinterpret_cast<uintptr_t>(frames[1].method) == 0x5100 && values[1] == 0x6120);
    // The same sender SP with a caller that is not interpreted: nothing says where that caller's frame is.
    stack.frame(20, stack.address(60), 0x4321, stack.address(21), 0x5000, 0x6010);
    CHECK(PhysicalWalk::walk_java(stack.thread(), top, frames, values, 8, &complete, &stopped_at) == 1 && !complete);
    PhysicalWalk::reset_for_test();
}

// A compiled method of c (at 0x10: c alone at bci 4; at 0x20: b at bci 7 inlined into c at 9).
struct Records {
    jmethodID c_only[1] = {method(3)};
    jint c_only_bcis[1] = {4};
    jmethodID b_in_c[2] = {method(2), method(3)};
    jint b_in_c_bcis[2] = {7, 9};
    PCStackInfo pcs[2] = {
        {reinterpret_cast<void*>(kStart + 0x10), 1, c_only, c_only_bcis},
        {reinterpret_cast<void*>(kStart + 0x20), 2, b_in_c, b_in_c_bcis},
    };
    jvmtiCompiledMethodLoadInlineRecord record{{JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION,
                                                JVMTI_CMLR_MINOR_VERSION, nullptr},
                                               2, pcs};
};

void expands_compiled_frames() {
    Records records;
    CompiledMethods code;
    code.on_load(method(3), kStart, 0x40, &records.record);
    code.on_load(method(9), kStart + 0x100, 0x40, nullptr, true);
    std::vector<CallFrame> out;
    // The record at or after the PC: a return address has its own, a top PC takes the next one.
    CHECK(code.append_frames_at(kStart + 0x20, false, &out) == 2);
    CHECK(out[0].method == method(2) && out[0].bci_or_marker == 7 && out[0].type == FrameType::kInlined);
    CHECK(out[1].method == method(3) && out[1].bci_or_marker == 9 && out[1].type == FrameType::kCompiled);
    out.clear();
    CHECK(code.append_frames_at(kStart + 0x11, false, &out) == 2 && out[0].method == method(2));
    out.clear();
    CHECK(code.append_frames_at(kStart + 0x08, false, &out) == 1);
    CHECK(out[0].method == method(3) && out[0].bci_or_marker == 4 && out[0].type == FrameType::kCompiled);
    // In the prologue or epilogue: the method alone.
    out.clear();
    CHECK(code.append_frames_at(kStart + 0x21, true, &out) == 1);
    CHECK(out[0].method == method(3) && out[0].bci_or_marker == 0 && out[0].type == FrameType::kCompiled);
    // Past the last record, and code nobody reported: no frames, the stack cannot be whole.
    out.clear();
    CHECK(code.append_frames_at(kStart + 0x30, false, &out) == -1 && out.empty());
    CHECK(code.append_frames_at(kStart + 0x80, false, &out) == -1 && !code.knows(kStart + 0x80));
    // A native method's wrapper: that method's Native frame.
    CHECK(code.knows(kStart + 0x110) && code.append_frames_at(kStart + 0x110, false, &out) == 1);
    CHECK(out[0].method == method(9) && out[0].type == FrameType::kNative);
}

// The emitter's side: a slot of compiled frames (markers and PCs) becomes the JIT's frames, the
// VM's frames above the last Java frame are passed over, and code nobody described fails it.
void builds_stacks_from_compiled_frames() {
    Records records;
    CompiledMethods code;
    code.on_load(method(3), kStart, 0x40, &records.record);
    code.on_generated("RuntimeStub - new_instance", 0x7e0000100000, 0x100);
    MethodTable methods;  // not initialized: no interpreted frame resolves
    RequestRing ring;
    CHECK(ring.init(2, 8));
    RequestSlot* slot = ring.claim();
    std::vector<CallFrame> scratch;
    auto fill = [&](std::initializer_list<uintptr_t> pcs, bool from_anchor) {
        slot->physical_count = 0;
        slot->physical_from_anchor = from_anchor;
        slot->vmstructs.top_unbuilt = false;
        slot->truncated = false;
        for (uintptr_t pc : pcs) {
            // The blob at kStart is method 3's.
            slot->frames[slot->physical_count] = CallFrame(kCompiledFrame, reinterpret_cast<jmethodID>(0x5003));
            slot->physical_pcs[slot->physical_count++] = pc;
        }
    };
    fill({kStart + 0x11, kStart + 0x10}, false);
    CHECK(java_frames_described(code, methods, *slot));
    CHECK(build_java_frames(code, methods, *slot, 8, &scratch) && slot->frame_count == 3);
    CHECK(slot->frames[0].method == method(2) && slot->frames[1].method == method(3));
    CHECK(slot->frames[2].method == method(3));
    CHECK(slot->frames[2].bci_or_marker == 4 && slot->frames[2].type == FrameType::kCompiled && !slot->truncated);
    // Room for two frames: cut, and marked truncated.
    fill({kStart + 0x11, kStart + 0x10}, false);
    CHECK(build_java_frames(code, methods, *slot, 2, &scratch) && slot->frame_count == 2 && slot->truncated);
    // From the frame anchor, a runtime stub's frame above the Java ones is passed over...
    fill({0x7e0000100010, kStart + 0x10}, true);
    CHECK(build_java_frames(code, methods, *slot, 8, &scratch) && slot->frame_count == 1);
    // ... but VM code below a Java frame is not understood: the stack fails.
    fill({kStart + 0x10, 0x7e0000100010}, false);
    CHECK(!build_java_frames(code, methods, *slot, 8, &scratch) && slot->frame_count == 0);
    // Code the JVM has not described: the slot waits, then fails.
    fill({kStart + 0x10, kStart + 0x1000}, false);
    CHECK(!java_frames_described(code, methods, *slot));
    CHECK(!build_java_frames(code, methods, *slot, 8, &scratch) && slot->frame_count == 0);
    // Code that named another method at the signal (freed and reused since): it waits, then fails.
    fill({kStart + 0x10}, false);
    slot->frames[0] = CallFrame(kCompiledFrame, reinterpret_cast<jmethodID>(0x5004));
    CHECK(!java_frames_described(code, methods, *slot));
    CHECK(!build_java_frames(code, methods, *slot, 8, &scratch) && slot->frame_count == 0);
    // An interpreted frame whose method is not known fails too.
    fill({kStart + 0x10}, false);
    slot->frames[0] = CallFrame(kInterpretedFrame, method(5));
    CHECK(!build_java_frames(code, methods, *slot, 8, &scratch));
    ring.destroy();
}

}  // namespace

int main() {
    walks_interpreted_frames();
    walks_interpreted_callers_by_frame_record();
    walks_past_methods_entered_by_method_handle_linkers();
    expands_compiled_frames();
    builds_stacks_from_compiled_frames();
    return 0;
}
