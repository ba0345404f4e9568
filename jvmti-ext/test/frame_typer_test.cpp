// type_frames aligns the physical frames a request walked with AsyncGetCallTrace's frames and
// types each from the code at its PC, from JVMTI records built the way HotSpot's
// CompiledMethodLoad lays them out (jvmticmlr.h); it stops at the first physical frame whose
// frames are not what the JVM recorded there.
#include "emitter/frame_typer.h"

#include <jvmticmlr.h>

#include "check.h"

using namespace stackreq;

namespace {

jmethodID method(uintptr_t n) { return reinterpret_cast<jmethodID>(n * 8); }

constexpr uintptr_t kInterpreter = 0x7e0000000000;
constexpr uintptr_t kStub = 0x7e0000100000;
// A compiled method c with b inlined into it: the call at return address +0x20 is in b (bci 7)
// inlined at c's bci 9; the one at +0x30 in c itself (bci 12).
constexpr uintptr_t kCompiled = 0x7f0000001000;
// The wrapper of a native method n.
constexpr uintptr_t kWrapper = 0x7f0000002000;

struct Records {
    jmethodID b_in_c[2] = {method(2), method(3)};
    jint b_in_c_bcis[2] = {7, 9};
    jmethodID c_only[1] = {method(3)};
    jint c_only_bcis[1] = {12};
    PCStackInfo pcs[2] = {
        {reinterpret_cast<void*>(kCompiled + 0x20), 2, b_in_c, b_in_c_bcis},
        {reinterpret_cast<void*>(kCompiled + 0x30), 1, c_only, c_only_bcis},
    };
    jvmtiCompiledMethodLoadInlineRecord record{
        {JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, nullptr}, 2, pcs};
};

void reset(CallFrame* frames, int count) {
    for (int i = 0; i < count; i++) {
        frames[i].type = frames[i].bci_or_marker == -3 ? FrameType::kNative : FrameType::kJava;
    }
}

}  // namespace

int main() {
    Records records;
    CompiledMethods code;
    code.on_load(method(3), kCompiled, 0x40, &records.record);
    code.on_load(method(9), kWrapper, 0x40, nullptr);
    code.on_generated("Interpreter", kInterpreter, 0x10000);
    code.on_generated("RuntimeStub - _new_instance_Java", kStub, 0x100);

    // An interpreted top frame a, called from b inlined into compiled c, called from interpreted d,
    // called from n's wrapper, called from interpreted e.
    CallFrame walked[6] = {{1, method(1)}, {7, method(2)},  {9, method(3)},
                           {4, method(4)}, {-3, method(9)}, {6, method(5)}};
    reset(walked, 6);
    const uintptr_t pcs[5] = {kInterpreter + 0x100, kCompiled + 0x20, kInterpreter + 0x200, kWrapper + 0x10,
                              kInterpreter + 0x300};
    CHECK(type_frames(code, pcs[0], pcs, 5, false, walked, 6) == 6);
    CHECK(walked[0].type == FrameType::kInterpreted);
    CHECK(walked[1].type == FrameType::kInlined);
    CHECK(walked[2].type == FrameType::kCompiled);
    CHECK(walked[3].type == FrameType::kInterpreted);
    CHECK(walked[4].type == FrameType::kNative);
    CHECK(walked[5].type == FrameType::kInterpreted);

    // A return address with no record of its own, or whose record is not the walked frames:
    // the typing stops there, and the frames below stay undetermined.
    reset(walked, 6);
    const uintptr_t no_record[3] = {kInterpreter + 0x100, kCompiled + 0x21, kInterpreter + 0x200};
    CHECK(type_frames(code, no_record[0], no_record, 3, false, walked, 6) == 1);
    CHECK(walked[0].type == FrameType::kInterpreted && walked[1].type == FrameType::kJava);
    CHECK(walked[3].type == FrameType::kJava);
    reset(walked, 6);
    walked[2].bci_or_marker = 10;
    CHECK(type_frames(code, pcs[0], pcs, 5, false, walked, 6) == 1);
    CHECK(walked[1].type == FrameType::kJava && walked[2].type == FrameType::kJava);
    walked[2].bci_or_marker = 9;

    // A native frame in a wrapper of another method is not typed through.
    reset(walked, 6);
    walked[4].method = method(8);
    CHECK(type_frames(code, pcs[0], pcs, 5, false, walked, 6) == 4);
    CHECK(walked[5].type == FrameType::kJava);
    walked[4].method = method(9);

    // A top frame that is not typed (code not reported yet): nothing below is typed either.
    reset(walked, 6);
    CHECK(type_frames(code, 0x7f0000009000, pcs, 5, false, walked, 6) == 0);
    CHECK(walked[3].type == FrameType::kJava);

    // From the thread's last Java frame, below a runtime stub the Java code called: the stub's
    // frame is passed over, and the first physical frame is typed by its return address.
    CallFrame from_anchor[3] = {{12, method(3)}, {4, method(4)}, {6, method(5)}};
    reset(from_anchor, 3);
    const uintptr_t anchored[4] = {kStub + 0x10, kCompiled + 0x30, kInterpreter + 0x200, kInterpreter + 0x300};
    CHECK(type_frames(code, 0, anchored, 4, true, from_anchor, 3) == 3);
    CHECK(from_anchor[0].type == FrameType::kCompiled);
    CHECK(from_anchor[1].type == FrameType::kInterpreted && from_anchor[2].type == FrameType::kInterpreted);

    // More physical frames than walked ones (a walk cut at its depth): the walked ones are typed.
    reset(walked, 6);
    CHECK(type_frames(code, pcs[0], pcs, 5, false, walked, 3) == 3);
    return 0;
}
