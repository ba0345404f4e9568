#include "walk/asgct_walk.h"

#include "native_unwind/native_unwind.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

#include "agent/log.h"
#include "hotspot/code_heaps.h"
#include "hotspot/code_pages.h"
#include "hotspot/stub_code.h"
#include "native_unwind/arch.h"
#include "native_unwind/unwind_arch.h"
#include "walk/physical_walk.h"

namespace stackreq {

namespace {

struct CallTrace {
    JNIEnv* env_id;
    jint num_frames;
    CallFrame* frames;
};

using AsyncGetCallTraceFunction = void (*)(CallTrace*, jint, void*);
AsyncGetCallTraceFunction g_async_get_call_trace = nullptr;

// The signal trampoline, the return address of every handler frame the kernel builds
// (unwind_arch.h's find_signal_trampoline).
uintptr_t g_signal_restorer = 0;

int32_t walk_once(JNIEnv* jni, void* ucontext, CallFrame* frames, uint32_t max_depth) {
    CallTrace trace{jni, 0, frames};
    g_async_get_call_trace(&trace, static_cast<jint>(max_depth), ucontext);
    return trace.num_frames;
}

// Walks from a copy of ucontext whose PC, SP and FP are replaced by registers.
int32_t walk_from(JNIEnv* jni, const void* ucontext, const Registers& registers, CallFrame* frames,
                  uint32_t max_depth) {
    alignas(16) char copy[kUcontextSize];
    std::memcpy(copy, ucontext, kUcontextSize);
    write_registers(copy, registers);
    return walk_once(jni, copy, frames, max_depth);
}

// walk_from, for a walk whose top physical frame is the one at registers.pc: sets *top.
int32_t walk_top_from(JNIEnv* jni, const void* ucontext, const Registers& registers, CallFrame* frames,
                      uint32_t max_depth, Registers* top) {
    const int32_t result = walk_from(jni, ucontext, registers, frames, max_depth);
    if (result > 0) *top = registers;
    return result;
}

constexpr uintptr_t kMaxStubFrameBytes = 512;
// How many bytes of code at a PC the frame-setup decoding may read.
constexpr uintptr_t kInstructionBytes = 16;

// Whether pc is in C or C++ code while the thread is in Java (its frame anchor known and empty):
// the signal came in another signal's handler (JFR's thread suspension, a safepoint poll's) or in
// a leaf call from Java code. AsyncGetCallTrace then follows the C frames' frame records; on
// aarch64 they lead into the signal frame's record of the interrupted code, which holds its x30,
// not its PC, and the walk goes on from that stale return address (under qemu, 1% of the stacks
// of a program JFR samples too, cut short or with frames that were not there), so there
// (kWalkBelowSignalHandlers) the walk starts below the handler or fails. On x86_64 such a walk
// ends at the signal frame instead.
bool in_c_code_in_java_state(const ThreadSlotView& thread, uintptr_t pc) {
    if (PhysicalWalk::in_interpreter(pc) || StubCode::contains(pc) || CodePages::contains(pc, 1)) return false;
    uintptr_t method = 0;
    bool frameless = false;
    const bool in_jvm_code = CodeHeaps::frame_words_and_method_at(pc, &method, nullptr, &frameless) > 0 || frameless;
    return !in_jvm_code && PhysicalWalk::without_java_frames(thread);
}

bool failed_in_java_code(int32_t result) {
    return result == kWalkUnknownJava || result == kWalkNotWalkableJava;
}

// Walks from the caller of a frame that is not set up (see FrameSetup); 0 for a built frame.
// The reads are within the thread's own stack mapping, so they cannot fault.
int32_t walk_from_unbuilt_frame(const ThreadSlotView& thread, void* ucontext, FrameSetup setup, CallFrame* frames,
                                uint32_t max_depth, Registers* top) {
    Registers caller{};
    if (setup == FrameSetup::kBuilt || !caller_of_unbuilt_frame(ucontext, setup, thread, &caller)) return 0;
    return walk_top_from(thread.jni, ucontext, caller, frames, max_depth, top);
}

// Retries the walk with registers that describe the caller of the stub.
// The reads are within the thread's own stack mapping and the stub's code, so they cannot fault.
int32_t walk_from_caller(const ThreadSlotView& thread, void* ucontext, CallFrame* frames,
                         uint32_t max_depth, Registers* top) {
    const Registers at_signal = read_registers(ucontext);
    const FrameSetup setup = stub_frame_setup_at(at_signal.pc);
    int32_t result = walk_from_unbuilt_frame(thread, ucontext, setup, frames, max_depth, top);
    if (result > 0) return result;
    result = kWalkUnknownJava;
    // aarch64: the stub's caller is a stub too (the arraycopy stubs call their copy loop with bl): from
    // that stub's record to its caller, where the decode places the record (top_frame's caller_of_stub).
    if (Registers in_calling_stub{}; setup != FrameSetup::kBuilt &&
                                     caller_of_unbuilt_frame(ucontext, setup, thread, &in_calling_stub)) {
        in_calling_stub.pc += 1;
        Registers caller{};
        if (caller_of_calling_stub(thread, in_calling_stub, &caller)) {
            caller.pc -= 1;
            const int32_t from_calling_stub = walk_top_from(thread.jni, ucontext, caller, frames, max_depth, top);
            if (from_calling_stub > 0) return from_calling_stub;
        }
    }
    // aarch64 decodes the whole stub: where that found the caller, or could not, the guesses below
    // (x86_64's) would only find a wrong one.
    if (setup == FrameSetup::kRecordAtFramePointer || setup == FrameSetup::kUnknown) return result;
    // The stub built a frame: caller's pc at fp+8, sp = fp+16. Stub frames are small; an fp far
    // above sp is a stale frame pointer left by compiled code (C2 does not keep rbp as one), and
    // walking from it would silently skip frames.
    if (at_signal.fp >= at_signal.sp && at_signal.fp - at_signal.sp <= kMaxStubFrameBytes &&
        thread.holds(at_signal.fp, 2 * sizeof(uintptr_t))) {
        const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(at_signal.fp);
        const Registers caller{frame[1] - 1, at_signal.fp + 2 * sizeof(uintptr_t), frame[0]};
        result = walk_top_from(thread.jni, ucontext, caller, frames, max_depth, top);
        if (result > 0) return result;
    }
    // A stub that builds no frame at all: the return address is at sp.
    const int32_t from_sp = walk_from_unbuilt_frame(thread, ucontext, FrameSetup::kReturnAddressOnTop, frames,
                                                    max_depth, top);
    return from_sp != 0 ? from_sp : result;
}

// A handler interrupted by a handler interrupted by ...: a few at most.
constexpr int kMaxNestedHandlers = 4;

// When two signals are delivered at once, the kernel stacks both handler frames and ours runs
// at the first instruction of the other handler: the Java context is then the ucontext the
// kernel saved for that one (unwind_arch.h's signal_context_at_handler_entry).
void* interrupted_context(const ThreadSlotView& thread, void* ucontext) {
    const StackBounds stack{thread.stack_low, thread.stack_high};
    for (int nesting = 0; nesting < kMaxNestedHandlers && g_signal_restorer != 0; nesting++) {
        const uintptr_t context = signal_context_at_handler_entry(stack, read_registers(ucontext), g_signal_restorer);
        if (context == 0) break;
        ucontext = reinterpret_cast<void*>(context);
    }
    return ucontext;
}

// AsyncGetCallTrace takes the top compiled frame's scope from the first debug-info entry
// strictly after the signal PC. With DebugNonSafepoints an entry ends each instruction, and
// the interrupted PC is the instruction after the one that ran: "strictly after" then lands on
// the next instruction, which is often the caller's loop line instead of the inlined callee's
// body (3 points of a hot inlined line moved to its caller). Walking from pc - 1 takes the entry
// at or after the PC, as async-profiler does. But pc - 1 may lie in the method's prologue or
// before its code, where the walk goes wrong, so only the top of the pc - 1 walk is taken, and
// only when the rest of it agrees with the full walk.
constexpr int32_t kProbeDepth = 6;
constexpr int32_t kMaxExtraInlined = 2;

bool same_frame(const CallFrame& a, const CallFrame& b) {
    return a.method == b.method && a.bci_or_marker == b.bci_or_marker;
}

// Whether the probe reads as `extra` callee frames inlined into frames[0]'s method (at any
// bci), then that method, then exactly the frames below frames[0].
bool probe_aligns(const CallFrame* probe, int32_t probed, const CallFrame* frames, int32_t count, int32_t extra) {
    if (extra >= probed || probe[extra].method != frames[0].method) return false;
    int32_t compared = 0;
    for (int32_t i = 1; extra + i < probed && i < count; i++, compared++) {
        if (!same_frame(probe[extra + i], frames[i])) return false;
    }
    // A complete probe must end where the full walk ends; a cut one must cover what it can.
    if (probed < kProbeDepth) return probed - extra == count;
    return compared >= std::min(count - 1, kProbeDepth - 1 - extra);
}

// When the probe's top frames are taken, the top physical frame was walked from pc - 1: *top.
int32_t refine_top_frames(JNIEnv* jni, void* ucontext, CallFrame* frames, int32_t count, uint32_t max_depth,
                          Registers* top) {
    Registers registers = read_registers(ucontext);
    registers.pc -= 1;
    CallFrame probe[kProbeDepth];
    const int32_t probed = walk_from(jni, ucontext, registers, probe, kProbeDepth);
    if (probed <= 0) return count;
    // In recursion (the same frames repeated) several alignments can agree, and only one is
    // true: then the full walk's own answer stands.
    int32_t extra = -1;
    for (int32_t candidate = 0; candidate <= kMaxExtraInlined; candidate++) {
        if (!probe_aligns(probe, probed, frames, count, candidate)) continue;
        if (extra >= 0) return count;
        extra = candidate;
    }
    if (extra < 0) return count;
    if (extra == 0) {
        frames[0] = probe[0];
        *top = registers;
        return count;
    }
    const int32_t kept = std::min<int32_t>(count - 1, static_cast<int32_t>(max_depth) - 1 - extra);
    if (kept < 0) return count;
    *top = registers;
    std::memmove(frames + 1 + extra, frames + 1, static_cast<size_t>(kept) * sizeof(CallFrame));
    for (int32_t i = 0; i <= extra; i++) frames[i] = probe[i];
    return 1 + extra + kept;
}

}  // namespace

void* AsgctWalk::context_of_interrupted_code(const ThreadSlotView& thread, void* ucontext) {
    return interrupted_context(thread, ucontext);
}

// The request's frames, the agent's and its handler's: a few, rarely more.
constexpr uint32_t kMaxHandlerFrames = 32;

void* AsgctWalk::signal_context_of_caller(const StackBounds& stack, const void* own_context) {
    const uintptr_t context =
        NativeUnwinder::signal_frame_above(stack, read_registers(own_context), g_signal_restorer, kMaxHandlerFrames);
    // The ucontext is then read directly: it lies on this thread's own stack, above the frames
    // this call runs in, whether or not HotSpot knows the stack's bounds.
    return context != 0 && context + kUcontextSize <= stack.high ? reinterpret_cast<void*>(context) : nullptr;
}

void* AsgctWalk::signal_context_of_caller(const ThreadSlotView& thread, const void* own_context) {
    if (thread.stack_high == 0) return nullptr;
    void* context = signal_context_of_caller(StackBounds{thread.stack_low, thread.stack_high}, own_context);
    return context != nullptr && thread.holds(reinterpret_cast<uintptr_t>(context), kUcontextSize) ? context : nullptr;
}

void* AsgctWalk::context_below_handlers(const ThreadSlotView& thread, void* ucontext, bool* in_c_code) {
    for (int nesting = 0; nesting < kMaxNestedHandlers; nesting++) {
        *in_c_code = in_c_code_in_java_state(thread, read_registers(ucontext).pc);
        if (!*in_c_code) return ucontext;
        void* below = signal_context_of_caller(thread, ucontext);
        if (below == nullptr) return ucontext;
        ucontext = below;
    }
    *in_c_code = in_c_code_in_java_state(thread, read_registers(ucontext).pc);
    return ucontext;
}

uint64_t AsgctWalk::time_bare_walk(const ThreadSlotView& thread, void* ucontext, CallFrame* frames,
                                     uint32_t max_depth) {
    if (g_async_get_call_trace == nullptr) return 0;
    if (thread.stack_high != 0) ucontext = interrupted_context(thread, ucontext);
    const uint64_t start = cycle_counter();
    walk_once(thread.jni, ucontext, frames, max_depth);
    return cycle_counter() - start;
}

bool AsgctWalk::init() {
    void* symbol = dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    if (symbol == nullptr) {
        void* libjvm = dlopen("libjvm.so", RTLD_NOW | RTLD_NOLOAD);
        if (libjvm != nullptr) symbol = dlsym(libjvm, "AsyncGetCallTrace");
    }
    g_async_get_call_trace = reinterpret_cast<AsyncGetCallTraceFunction>(symbol);
    // Without the signal frame (kSignalFrameKnown) no frame is taken for a signal's.
    g_signal_restorer = kSignalFrameKnown ? find_signal_trampoline() : 0;
    if (kSignalFrameKnown && g_signal_restorer == 0) {
        Log::warn("the signal trampoline was not found: a request without a ucontext from a signal handler gets the "
                  "stack at the call or at the thread's next safepoint (as null-ucontext=safepoint)");
    }
    return g_async_get_call_trace != nullptr;
}

int32_t AsgctWalk::walk(const ThreadSlotView& thread, void* ucontext, CallFrame* frames,
                          uint32_t max_depth, bool* recovered, Registers* top, uint64_t* first_walk_cycles) {
    *recovered = false;
    *top = Registers{0, 0, 0};
    if (g_async_get_call_trace == nullptr) return kWalkUnavailable;
    if (thread.stack_high != 0) {
        ucontext = interrupted_context(thread, ucontext);
        bool in_c_code = false;
        if (kWalkBelowSignalHandlers) ucontext = context_below_handlers(thread, ucontext, &in_c_code);
        // A real signal context has SP inside the thread's stack. AsyncGetCallTrace does not
        // check it before reading relative to it (deopt handler PCs), so refuse the walk here.
        uintptr_t sp = read_registers(ucontext).sp;
        if (sp < thread.stack_low || sp >= thread.stack_high) return kWalkBadContext;
        if (in_c_code) return kWalkUnknownNotJava;
    }
    const uintptr_t pc = read_registers(ucontext).pc;
    // In a compiled method's prologue or epilogue its frame is not there: AsyncGetCallTrace
    // would still size it from sp and return a stack made of stale slots, so the walk starts
    // at the caller (the method itself is entered or left, and the sample goes to the caller).
    if (thread.stack_high != 0 && CodePages::contains(pc, kInstructionBytes) && !StubCode::contains(pc)) {
        const FrameSetup setup = compiled_frame_setup_at(pc);
        if (setup != FrameSetup::kBuilt) {
            const uint64_t walk_start = first_walk_cycles != nullptr ? cycle_counter() : 0;
            int32_t result = walk_from_unbuilt_frame(thread, ucontext, setup, frames, max_depth, top);
            if (first_walk_cycles != nullptr) *first_walk_cycles = cycle_counter() - walk_start;
            if (result > 0) return result;
        }
    }
    const uint64_t walk_start = first_walk_cycles != nullptr ? cycle_counter() : 0;
    int32_t result = walk_once(thread.jni, ucontext, frames, max_depth);
    if (first_walk_cycles != nullptr) *first_walk_cycles = cycle_counter() - walk_start;
    if (result > 0) {
        *top = read_registers(ucontext);
        return refine_top_frames(thread.jni, ucontext, frames, result, max_depth, top);
    }
    if (!failed_in_java_code(result) || thread.stack_high == 0) return result;
    // Only a stub has its Java caller one frame up; elsewhere (the interpreter, a compiled
    // method's prologue, libjvm) unwinding one frame would silently drop Java frames. On aarch64
    // a blind retry from x29's frame record gave stacks cut short below the stub's caller (1% of
    // them under qemu): a leaf stub that builds no record leaves x29 the caller's, and its caller's
    // PC in x30. So aarch64 retries only where stub_frame_setup_at decoded the stub's setup.
    if (!kStubFramesKnown || !StubCode::contains(pc)) return result;
    int32_t retried = walk_from_caller(thread, ucontext, frames, max_depth, top);
    if (retried > 0) {
        *recovered = true;
        return retried;
    }
    return result;
}

}  // namespace stackreq
