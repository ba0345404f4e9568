// CompiledMethods types a walk's top physical frame from JVMTI records built here the way
// HotSpot's CompiledMethodLoad lays them out (jvmticmlr.h).
#include "emitter/compiled_methods.h"

#include <jvmticmlr.h>

#include "check.h"

using namespace stackreq;

namespace {

jmethodID method(uintptr_t n) { return reinterpret_cast<jmethodID>(n * 8); }

constexpr uintptr_t kStart = 0x7f0000001000;

// A compiled method of c (at 0x10: c alone at bci 4; at 0x20: b at bci 7 inlined into c at
// bci 9; at 0x30: a at 2 in b at 7 in c at 9).
struct Records {
    jmethodID c_only[1] = {method(3)};
    jint c_only_bcis[1] = {4};
    jmethodID b_in_c[2] = {method(2), method(3)};
    jint b_in_c_bcis[2] = {7, 9};
    jmethodID a_in_b_in_c[3] = {method(1), method(2), method(3)};
    jint a_in_b_in_c_bcis[3] = {2, 7, 9};
    PCStackInfo pcs[3] = {
        {reinterpret_cast<void*>(kStart + 0x10), 1, c_only, c_only_bcis},
        {reinterpret_cast<void*>(kStart + 0x20), 2, b_in_c, b_in_c_bcis},
        {reinterpret_cast<void*>(kStart + 0x30), 3, a_in_b_in_c, a_in_b_in_c_bcis},
    };
    jvmtiCompiledMethodLoadInlineRecord record{{JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION,
                                                JVMTI_CMLR_MINOR_VERSION, nullptr},
                                               3, pcs};
};

void reset(CallFrame* frames, int count) {
    for (int i = 0; i < count; i++) frames[i].type = FrameType::kJava;
}

}  // namespace

int main() {
    Records records;
    CompiledMethods code;
    code.on_load(nullptr, kStart, 0x40, &records.record);
    code.on_generated("Interpreter", 0x7e0000000000, 0x10000);
    code.on_generated("StubRoutines (1)", 0x7e0000100000, 0x1000);

    // a inlined into b inlined into c, called from an interpreted d: the PC right before the
    // record of a's chain.
    CallFrame walked[4] = {{2, method(1)}, {7, method(2)}, {9, method(3)}, {5, method(4)}};
    CHECK(code.type_top_frames(kStart + 0x2f, walked, 4) == 3);
    CHECK(walked[0].type == FrameType::kInlined);
    CHECK(walked[1].type == FrameType::kInlined);
    CHECK(walked[2].type == FrameType::kCompiled);
    CHECK(walked[3].type == FrameType::kJava);

    // b in c, at a PC whose next record is a's chain: the chain that is the walked frames counts.
    CallFrame b_in_c[3] = {{7, method(2)}, {9, method(3)}, {5, method(4)}};
    CHECK(code.type_top_frames(kStart + 0x21, b_in_c, 3) == 2);
    CHECK(b_in_c[0].type == FrameType::kInlined && b_in_c[1].type == FrameType::kCompiled);

    // Frames that no record of the method holds (another bci) are not typed.
    reset(b_in_c, 3);
    CallFrame wrong_bci[3] = {{8, method(2)}, {9, method(3)}, {5, method(4)}};
    CHECK(code.type_top_frames(kStart + 0x1f, wrong_bci, 3) == 0);
    CHECK(wrong_bci[0].type == FrameType::kJava && wrong_bci[1].type == FrameType::kJava);

    // A walk shorter than the chain is not typed either.
    CHECK(code.type_top_frames(kStart + 0x2f, walked, 2) == 0);

    // The interpreter: the top frame only.
    CallFrame interpreted[2] = {{3, method(5)}, {5, method(4)}};
    CHECK(code.type_top_frames(0x7e0000000400, interpreted, 2) == 1);
    CHECK(interpreted[0].type == FrameType::kInterpreted && interpreted[1].type == FrameType::kJava);

    // A native top frame stays native; a PC in a stub or outside any code types nothing.
    CallFrame native[2] = {{-3, method(6), FrameType::kNative}, {5, method(4)}};
    CHECK(code.type_top_frames(0x7e0000000400, native, 2) == 0);
    CHECK(native[0].type == FrameType::kNative);
    reset(interpreted, 2);
    CHECK(code.type_top_frames(0x7e0000100010, interpreted, 2) == 0);
    CHECK(code.type_top_frames(kStart + 0x40, interpreted, 2) == 0);
    CHECK(code.type_top_frames(0, interpreted, 2) == 0);
    CHECK(interpreted[0].type == FrameType::kJava);

    // Consecutive records with one chain (kept as one run): every PC before the run's last
    // record still finds that chain.
    constexpr uintptr_t kRun = 0x7f0000100000;
    jmethodID run_methods[1] = {method(7)};
    jint first_bcis[1] = {1};
    jint second_bcis[1] = {2};
    PCStackInfo run[4] = {{reinterpret_cast<void*>(kRun + 0x4), 1, run_methods, first_bcis},
                          {reinterpret_cast<void*>(kRun + 0x8), 1, run_methods, first_bcis},
                          {reinterpret_cast<void*>(kRun + 0xc), 1, run_methods, first_bcis},
                          {reinterpret_cast<void*>(kRun + 0x10), 1, run_methods, second_bcis}};
    jvmtiCompiledMethodLoadInlineRecord run_record{
        {JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, nullptr}, 4, run};
    code.on_load(nullptr, kRun, 0x20, &run_record);
    for (uintptr_t pc = kRun; pc < kRun + 0xc; pc++) {
        CallFrame in_run[2] = {{1, method(7)}, {5, method(4)}};
        CHECK(code.type_top_frames(pc, in_run, 2) == 1);
        CHECK(in_run[0].type == FrameType::kCompiled);
    }

    // Recursive inlining: r at 5 alone, and r at 5 inlined into r at 9, both prefixes of the
    // walk. The record strictly after the PC decides, as it did for AsyncGetCallTrace.
    constexpr uintptr_t kRecursive = 0x7f0000200000;
    jmethodID r_methods[2] = {method(8), method(8)};
    jint r_bcis[2] = {5, 9};
    PCStackInfo recursive[2] = {{reinterpret_cast<void*>(kRecursive + 0x10), 1, r_methods, r_bcis},
                                {reinterpret_cast<void*>(kRecursive + 0x18), 2, r_methods, r_bcis}};
    jvmtiCompiledMethodLoadInlineRecord recursive_record{
        {JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, nullptr}, 2, recursive};
    code.on_load(nullptr, kRecursive, 0x20, &recursive_record);
    CallFrame r_walk[3] = {{5, method(8)}, {9, method(8)}, {9, method(8)}};
    CHECK(code.type_top_frames(kRecursive + 0xf, r_walk, 3) == 1);
    CHECK(r_walk[0].type == FrameType::kCompiled && r_walk[1].type == FrameType::kJava);
    reset(r_walk, 3);
    CHECK(code.type_top_frames(kRecursive + 0x10, r_walk, 3) == 2);
    CHECK(r_walk[0].type == FrameType::kInlined && r_walk[1].type == FrameType::kCompiled);

    // After the unload the code is unknown; new code loaded over the old range replaces it.
    code.on_unload(kStart);
    reset(walked, 4);
    CHECK(code.type_top_frames(kStart + 0x2f, walked, 4) == 0);
    code.on_load(nullptr, kStart, 0x40, &records.record);
    Records other;
    other.pcs[2].pc = reinterpret_cast<void*>(kStart + 0x50);
    other.pcs[0].pc = reinterpret_cast<void*>(kStart + 0x48);
    other.pcs[1].pc = reinterpret_cast<void*>(kStart + 0x4c);
    code.on_load(nullptr, kStart + 0x38, 0x20, &other.record);
    CHECK(code.type_top_frames(kStart + 0x2f, walked, 4) == 0);
    CHECK(code.type_top_frames(kStart + 0x4f, walked, 4) == 3);
    return 0;
}
