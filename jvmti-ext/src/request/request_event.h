// The one record of a request, from the ring to the chunk: the request path fills its time and
// user data in the ring slot, the emitter its thread, stack and outcome, the event store keeps
// it, and the chunk writer writes it as a jdk.StackTraceRequest event.
#pragma once

#include <cstdint>

namespace stackreq {

// A frame's type, as JFR's jdk.types.FrameType pool spells it (jfr_metadata.cpp). kJava is a
// Java frame whose type was not determined: AsyncGetCallTrace does not say whether a frame is
// interpreted, compiled or inlined; the emitter types each physical frame the request walked
// from the code at its PC (frame_typer.h) as far as the JVM's records confirm them.
enum class FrameType : uint8_t { kJava = 0, kInterpreted, kCompiled, kInlined, kNative };

struct StackTraceRequestEvent {
    int64_t start_ticks;         // CLOCK_MONOTONIC nanoseconds of the request
    uint64_t thread_id;          // ThreadEntry::id, 0 = none
    uint64_t stack_trace_id;     // StackTraceEntry::id, 0 = none (failed)
    int64_t user_data;
    bool failed;
    bool biased;
    uint32_t requester_id = 0;   // Requesters id (requesters.h), 0 = unknown
};

}  // namespace stackreq
