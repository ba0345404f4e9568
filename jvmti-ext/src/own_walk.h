// walker=vmstructs: stackreq's own stack walk, in place of AsyncGetCallTrace. In the signal
// handler it records the physical frames (PhysicalWalk::walk_java) and nothing expensive: an
// interpreted frame's Method* and bytecode pointer, a compiled frame's PC; the emitter makes
// Java frames of them (java_frames.h), with the inlined frames the JIT recorded for each PC.
// Where the walk cannot start or cannot finish (the PC in a stub or in code it does not know, a
// thread without a last Java frame, a frame it cannot size) it returns 0 and the request is
// walked with AsyncGetCallTrace instead (StackWalker).
#pragma once

#include <atomic>
#include <cstdint>

#include "request_ring.h"
#include "thread_registry.h"

namespace stackreq {

class OwnWalk {
public:
    // Async-signal-safe. Walks the calling thread from ucontext (as StackWalker::walk) into slot:
    // frames and physical_pcs (at most max), top_bcp, top_unbuilt and physical_from_anchor.
    // Returns the frame count, 0 when AsyncGetCallTrace must walk instead. *truncated: max
    // frames were walked and more are below.
    static int32_t walk(const ThreadSlotView& thread, void* ucontext, RequestSlot* slot, int32_t max,
                        bool* truncated);
    // How many walks returned frames, and how many left the request to AsyncGetCallTrace (logged
    // at the JVM's exit).
    static uint64_t walked();
    static uint64_t left_to_async_get_call_trace();
    // Of those, the walks that started but could not finish.
    static uint64_t cut_short();
    // Async-signal-safe: the result of AsyncGetCallTrace's walk of a request left to it.
    static void note_left_walk(int32_t frame_count);
    // How many of those walks failed too.
    static uint64_t left_and_failed();

private:
    static int32_t walk_frames(const ThreadSlotView& thread, void* ucontext, RequestSlot* slot, int32_t max,
                               bool* truncated);
};

}  // namespace stackreq
