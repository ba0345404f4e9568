// walker=vmstructs, in the emitter: the Java frames of a VMStructs walk (vmstructs_walk.h), built from what
// the signal handler recorded: an interpreted frame's Method* becomes its jmethodID and its
// bytecode pointer its bci (method_table.h), typed Interpreted; a compiled frame's PC becomes the
// frames the JIT recorded for it (CompiledMethods::append_frames_at). A frame the JVM has not
// described (yet), an unloaded method, a bytecode pointer outside its method, or VM code between
// Java frames make the whole stack fail: a stack is complete and right, or there is none.
#pragma once

#include <vector>

#include "emitter/compiled_methods.h"
#include "hotspot/method_table.h"
#include "request/request_ring.h"

namespace stackreq {

// Whether every compiled frame's code of the slot is known to code (a walk may be drained
// before the JVM has reported the code it ran, CompiledMethodLoad being posted late).
bool java_frames_described(const CompiledMethods& code, const MethodTable& methods, const RequestSlot& slot);

// Why stacks of VMStructs walks failed, since the start (emitter context; logged at the JVM's exit).
struct JavaFrameFailures {
    uint64_t method_unknown = 0;     // an interpreted frame's Method* is in no class stackreq saw, or unloaded
    uint64_t bcp_outside = 0;        // its bytecode pointer is not in its method (top: entering, leaving)
    uint64_t code_undescribed = 0;   // a compiled frame's PC in code the JVM has not described (as it was)
};
const JavaFrameFailures& java_frame_failures();

// Builds the slot's frames into slot.frames (at most capacity, the rest cut: slot.truncated),
// sets frame_count; false (frame_count 0) when the stack cannot be made whole, *failure (when
// not null) then naming why ("unknown-method", "bcp-outside-method", "undescribed-code",
// "no-frames").
bool build_java_frames(const CompiledMethods& code, const MethodTable& methods, RequestSlot& slot,
                       int32_t capacity, std::vector<CallFrame>* scratch, const char** failure = nullptr);

}  // namespace stackreq
