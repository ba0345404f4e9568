// Unbiased stack walks from a signal's ucontext with the JVM's AsyncGetCallTrace, plus the
// stub recovery: AsyncGetCallTrace fails when the PC is in a leaf stub (see stub_code.h), and
// a copy loop spends its time in the arraycopy stub, so without the recovery exactly the
// samples of its hot line would have no stack. The recovery unwinds that one native frame and
// walks again from the Java caller. Where the PC shows that the frame is not set up (a
// compiled method's prologue or epilogue, code_pages.h; a stub's entry or return) the walk
// starts at the caller, because AsyncGetCallTrace would size the missing frame from sp and
// return stale stack slots.
#pragma once

#include <cstdint>

#include "native_unwind/arch.h"
#include "native_unwind/native_unwind.h"
#include "request/request_ring.h"
#include "request/thread_registry.h"

namespace stackreq {

// AsyncGetCallTrace's error codes (forte.cpp).
enum WalkError : int32_t {
    kWalkNoJavaFrames = 0,
    kWalkNoClassLoad = -1,
    kWalkGcActive = -2,
    kWalkUnknownNotJava = -3,
    kWalkNotWalkableNotJava = -4,
    kWalkUnknownJava = -5,
    kWalkNotWalkableJava = -6,
    kWalkUnknownState = -7,
    kWalkThreadExit = -8,
    kWalkDeopt = -9,
    kWalkSafepoint = -10,
    kWalkUnavailable = -100,  // AsyncGetCallTrace not found in libjvm
    kWalkBadContext = -101,   // the context's SP is not in the thread's usable stack
    kWalkUnbuiltVmFrame = -102  // walker=vmstructs: a VM stub's frame in transition (VmStructsWalk::fails_outright)
};

class AsgctWalk {
public:
    // Normal context: finds AsyncGetCallTrace in the loaded libjvm.
    static bool init();

    // Async-signal-safe. Walks the calling thread from ucontext into frames (max_depth
    // entries). Returns the frame count (> 0) or a WalkError. *recovered is set when the
    // stub recovery produced the result. *top receives the registers AsyncGetCallTrace walked
    // the top physical frame from; its PC is the signal's, the signal's - 1 when the top frames
    // are the PC - 1 probe's, the caller's return address - 1 when the walk started at the
    // caller: in compiled code its top frames are the debug record strictly after that PC, which
    // the emitter types them by (compiled_methods.h); the physical walk starts there
    // (physical_walk.h).
    // When the thread is in the VM or in native code, AsyncGetCallTrace starts at the thread's
    // last Java frame instead, and the PC is not in Java code. With first_walk_cycles
    // (latency=), it receives the cycle_counter() time of the first AsyncGetCallTrace call
    // alone: the bare walk.
    static int32_t walk(const ThreadSlotView& thread, void* ucontext, CallFrame* frames, uint32_t max_depth,
                        bool* recovered, Registers* top, uint64_t* first_walk_cycles = nullptr);
    // Async-signal-safe, latency= with walker=vmstructs: the cycle_counter() time of one bare
    // AsyncGetCallTrace walk from ucontext into frames (max_depth of them), the baseline the own
    // walk is measured against; 0 when AsyncGetCallTrace is not there.
    static uint64_t time_bare_walk(const ThreadSlotView& thread, void* ucontext, CallFrame* frames,
                                   uint32_t max_depth);
    // Async-signal-safe. The context of the code the signal interrupted: ucontext itself, or, when
    // the handler was entered at the first instruction of another handler (two signals delivered
    // at once), the context the kernel saved for that one.
    static void* context_of_interrupted_code(const ThreadSlotView& thread, void* ucontext);
    // Async-signal-safe. For a request without a ucontext: when the call comes from a signal
    // handler of this thread, the ucontext the kernel saved for that signal, found by unwinding
    // from own_context (the request's getcontext, or a signal's context in a handler) to the
    // signal trampoline (NativeUnwinder::signal_frame_above); null elsewhere or when the unwind
    // cannot get there.
    static void* signal_context_of_caller(const ThreadSlotView& thread, const void* own_context);
    // Async-signal-safe, thread's stack bounds known. When the PC of ucontext is in C code while
    // the thread is in Java (a signal handler's, such as JFR's thread suspension, or a leaf call's),
    // the context the kernel saved for the signal that handler runs for, found by unwinding to the
    // trampoline as signal_context_of_caller does, a few nested handlers deep; ucontext itself
    // elsewhere. *in_c_code: whether the context returned still has its PC so (no signal frame
    // above it: a leaf call, or a frame the unwind cannot pass). kWalkBelowSignalHandlers.
    static void* context_below_handlers(const ThreadSlotView& thread, void* ucontext, bool* in_c_code);
    // The same on a thread the registry does not hold (native=on, internal_threads.h), whose stack
    // is read within stack's bounds (through the kernel where HotSpot does not know them).
    static void* signal_context_of_caller(const StackBounds& stack, const void* own_context);
};

}  // namespace stackreq
