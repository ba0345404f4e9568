// walker=vmstructs: stackreq's own stack walk, in place of AsyncGetCallTrace. In the signal
// handler it records the physical frames (PhysicalWalk::walk_java) and nothing expensive: an
// interpreted frame's Method* and bytecode pointer, a compiled frame's PC; the emitter makes
// Java frames of them (java_frames.h), with the inlined frames the JIT recorded for each PC.
// A PC in a leaf stub (stub_code.h) is walked from the stub's compiled caller, found from the
// stub's frame setup or the return address on top of the stack; a PC in native code that
// compiled code called as a leaf (no frame anchor set) from that caller, found by the native
// unwinder (native_unwind.h). Where the walk cannot start or cannot finish (the PC in code it
// does not know, a thread without a last Java frame, a frame it cannot size) it returns 0, says
// why (VmStructsWalkOutcome), and the request is walked with AsyncGetCallTrace instead (AsgctWalk),
// or fails when the outcome is one AsyncGetCallTrace walks wrong (fails_outright).
#pragma once

#include <atomic>
#include <cstdint>

#include "request/request_ring.h"
#include "request/thread_registry.h"

namespace stackreq {

// What the VMStructs walk did with a request: walked it, or why it left it to AsyncGetCallTrace.
enum class VmStructsWalkOutcome : uint8_t {
    kWalked = 0,
    kNoStackBounds,      // the thread's stack bounds are not known, or max <= 1
    kSpOutsideStack,     // the signal's SP is not in the thread's stack
    kUnbuiltUnreadable,  // a compiled method being entered or left, its caller's words not readable
    kStubCallerUnknown,  // the PC in a leaf stub whose compiled caller the walk cannot find
    kUnsizedCode,        // the PC in Java code the walk cannot size (a blob it does not know), or in the
                         // interpreter where it cannot tell which method runs (top_frame.h)
    kNoLastJavaFrame,    // not in Java code, no last Java frame in the anchor, no compiled caller unwound to
    kCutShort,           // a frame below the top the walk cannot size
    kNoJavaFrame,        // no Java frame: in native code (thread state) or unwound to the thread's first frame
    kExceptionDispatch,  // the PC in VM code that dispatches an exception, its frame not the anchor's
    kUnbuiltVmFrame,     // the PC in other VM code with a frame, outside the window the anchor holds it
    kInterpreterReturning,  // the interpreter returning into a compiled caller, its frame removed (top_frame.h)
    kCount
};
// A short name for logs ("walked", "stub-caller-unknown", ...).
const char* vmstructs_walk_outcome_name(VmStructsWalkOutcome outcome);

class VmStructsWalk {
public:
    // Async-signal-safe. Walks the calling thread from ucontext (as AsgctWalk::walk) into slot:
    // frames and physical_pcs (at most max), vmstructs.top_bcp, vmstructs.top_unbuilt and physical_from_anchor.
    // Returns the frame count, 0 when AsyncGetCallTrace must walk instead; *outcome says which
    // (and why). *truncated: max frames were walked and more are below.
    static int32_t walk(const ThreadSlotView& thread, void* ucontext, RequestSlot* slot, int32_t max, bool* truncated,
                        VmStructsWalkOutcome* outcome);
    // How many walks ended with outcome since the start (logged at the JVM's exit).
    static uint64_t count(VmStructsWalkOutcome outcome);
    // Whether a walk that ended with outcome fails the request instead of leaving it to
    // AsyncGetCallTrace, because AsyncGetCallTrace walks those wrong: a runtime stub or blob whose
    // frame is being built or torn down, where it sizes the frame from SP all the same and can
    // return another stack's frames (a wrong trace in the oracle: PC in resolve_opt_virtual_call
    // while it restored the registers it had saved); the interpreter returning into a compiled
    // caller, where it takes the frame at the frame pointer for the running one too (the oracle on
    // H2: an older interpreted method on top, the compiled caller lost); and no last Java frame, where it mostly
    // fails too (24 of 25 on JDK 25's classloading, streams and exceptions) and once in about
    // 300,000 oracle samples left out the compiled method being returned from.
    static bool fails_outright(VmStructsWalkOutcome outcome);
    // How many walks returned frames, and how many left the request to AsyncGetCallTrace.
    static uint64_t walked();
    static uint64_t left_to_async_get_call_trace();
    // Of the walks that returned frames, those that started at a leaf stub's caller.
    static uint64_t walked_from_stub();
    // ... and those that started at the compiled caller of a leaf call into native code.
    static uint64_t walked_from_leaf_call();
    // ... those that started at the frame anchor with the PC in VM code that has a frame (a runtime
    // stub, the exception blob), at the caller of frameless VM code (a vtable, itable or
    // inline-cache stub, an adapter), and at a method the interpreter is entering.
    static uint64_t walked_from_blob_anchor();
    static uint64_t walked_from_frameless();
    static uint64_t walked_entering();
    // ... and, of all those, the walks of the code another signal's handler interrupted: the
    // request's signal came at that handler's first instruction (two signals delivered at once,
    // AsgctWalk::context_of_interrupted_code), or later inside it (kWalkBelowSignalHandlers: aarch64).
    static uint64_t walked_at_handler_entry();
    static uint64_t walked_below_handler();
    // Async-signal-safe: the result of AsyncGetCallTrace's walk of a request left to it.
    static void note_left_walk(int32_t frame_count);
    // Normal context (the emitter): a stack AsyncGetCallTrace walked was rejected after all.
    static void note_left_stack_rejected();
    // How many of those walks failed too, or gave a stack that was rejected.
    static uint64_t left_and_failed();

private:
    static int32_t walk_frames(const ThreadSlotView& thread, void* ucontext, RequestSlot* slot, int32_t max,
                               bool* truncated, VmStructsWalkOutcome* outcome);
};

}  // namespace stackreq
