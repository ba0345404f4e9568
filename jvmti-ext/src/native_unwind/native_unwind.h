// native=on: the native frames of an unbiased request, from the signal's registers up to the
// first frame that is not in a loaded object's code (the JIT code, the interpreter or a stub the
// Java walk starts at). Frames are unwound with the object's call-frame rows where it has them
// (eh_frame.h: code built without frame pointers, prologues, epilogues) and with the frame
// pointer chain elsewhere. Only raw PCs are recorded; the emitter names them
// (native_symbols.h). Every stack read is an aligned word inside the given bounds: directly when
// they are the thread's usable stack (above its guard zones), through the kernel when the stack
// is not known (internal_threads.h); the rows are stackreq's own arrays: nothing here can fault.
#pragma once

#include <cstdint>

#include "native_unwind/arch.h"

namespace stackreq {

// The most native frames one request records (the depth= option also bounds them, to half).
constexpr uint32_t kMaxNativeFrames = 64;

struct StackBounds {
    uintptr_t low;   // lowest address read
    uintptr_t high;  // one past the highest
    // Each word is read with process_vm_readv, which fails where a plain read would fault: for
    // bounds that are not known to be mapped.
    bool through_kernel = false;
};

class NativeUnwinder {
public:
    // Async-signal-safe. Writes up to max PCs into pcs, the signal's first; the others are return
    // addresses. A signal PC in a leaf stub (stub_code.h) is recorded as the one native frame.
    // Returns the count.
    static uint32_t unwind(const StackBounds& stack, Registers registers, uintptr_t* pcs, uint32_t max);
    // Async-signal-safe. walker=vmstructs: from registers whose PC is in a loaded object's code,
    // unwinds at most max native frames to the first frame whose PC is not (the Java code, a stub
    // or the interpreter that called into it) and sets *out to that frame's registers. False when
    // registers' PC is not in a loaded object's code, or the unwind stops before: *outermost then
    // says whether it stopped at the thread's first frame (whose unwind rows say it is).
    static bool caller_outside_objects(const StackBounds& stack, Registers registers, uint32_t max,
                                       Registers* out, bool* outermost);
    // Async-signal-safe. From registers in a loaded object's code (a request's own, getcontext,
    // or a signal's in a handler), unwinds at most max frames of loaded objects to the one that
    // returns to restorer, the signal trampoline the kernel made the handler return to, and
    // returns the ucontext the kernel saved for the signal (unwind_arch.h's
    // signal_context_in_frame). 0 when no frame does (not in a signal handler, or a frame without
    // rows or frame pointer on the way) or the frame there is not a signal frame.
    static uintptr_t signal_frame_above(const StackBounds& stack, Registers registers, uintptr_t restorer,
                                        uint32_t max);
};

}  // namespace stackreq
