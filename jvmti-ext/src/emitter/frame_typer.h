// Every frame's type, from AsyncGetCallTrace's frames and the physical frames the request path
// walked beside them (physical_walk.h): the top physical frame's frames by the code at the walk's
// PC, each lower one's by the code at its return address (CompiledMethods). The physical frames
// are aligned with the walked ones from the top; at the first physical frame whose frames are not
// exactly what the JVM recorded for its code (code not reported yet, a deoptimized frame, the
// entry frame below which the physical walk does not go), the typing stops and the frames from
// there on keep the type they have: a Java frame stays undetermined (FrameType::kJava), a native
// method's Native. Normal context (the emitter).
#pragma once

#include <cstdint>

#include "emitter/compiled_methods.h"

namespace stackreq {

// top_pc is the walk's top PC (AsgctWalk::walk); pcs the physical frames' (PhysicalWalk::walk):
// from top_pc's frame down, or from_anchor, from the thread's last Java frame, where the VM's own
// frames (a runtime stub the Java code called) come first and are passed over. Returns the
// number of frames typed from the top.
int32_t type_frames(const CompiledMethods& code, uintptr_t top_pc, const uintptr_t* pcs, int32_t pc_count,
                    bool from_anchor, CallFrame* frames, int32_t count);

}  // namespace stackreq
