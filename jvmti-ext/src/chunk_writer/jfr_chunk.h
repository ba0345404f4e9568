// The content of one JFR chunk written by stackreq, and the writer that serializes it.
// The emitter collects everything an event refers to (threads, stacks, methods) into a
// ChunkContent; write_chunk() derives the class/package/symbol pools, the metadata and the
// checkpoint, and produces a self-contained chunk that can be appended to any .jfr file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "request/counters.h"
#include "request/request_event.h"

namespace stackreq {

// The ids of methods, stacks and threads become constant-pool keys as they are. The JDK reader
// reuses an entry of the previous chunk when its key repeats (ChunkParser), so an id must name
// the same content in every chunk a process writes: ids for the life of the agent.
struct MethodEntry {
    uint64_t id;                 // key used by StackFrameEntry::method_id; nonzero
    // Unknown parts are written as class "<unknown>", method "<unknown>", descriptor "()V":
    // readers (jfr print) fail on a method without class or descriptor.
    std::string class_name;      // binary name with slashes: "java/lang/String"; "" = unknown
    std::string method_name;     // "" = unknown (e.g. class unloaded)
    std::string descriptor;      // "(I)V"; "" = unknown
    int32_t modifiers = 0;       // JVM access flags of the method
    bool hidden = false;         // method of a hidden class (lambda forms)
    int32_t class_modifiers = 0; // JVM access flags of its class
};

struct StackFrameEntry {
    uint64_t method_id;
    int32_t line;                // -1 when unknown
    int32_t bci;                 // -1 when unknown
    FrameType type;
};

struct StackTraceEntry {
    uint64_t id;                 // nonzero
    bool truncated;
    std::vector<StackFrameEntry> frames;  // top frame first
};

struct ThreadEntry {
    uint64_t id;                 // nonzero
    int64_t os_thread_id;
    int64_t java_thread_id;      // 0 when unknown
    std::string java_name;       // "" when unknown
    std::string os_name;
    bool is_virtual = false;
};

// The time scale a chunk header states: wall clock and tick counter at the chunk start.
struct TickScale {
    int64_t start_ticks = 0;
    int64_t start_epoch_nanos = 0;
    int64_t ticks_per_second = 0;  // 0 = no scale
};

struct ChunkContent {
    int64_t start_epoch_nanos;   // wall clock of start_ticks
    int64_t start_ticks;         // CLOCK_MONOTONIC ns; ticks per second is 1e9
    int64_t duration_nanos;      // covers every event
    // When the chunk is appended to a JVM recording: the scale of that file's first chunk
    // (read_tick_scale on its first 68 bytes). The JDK 25 reader converts the ticks of every
    // chunk in a file with the first chunk's header (measured: our events 18 minutes off, the
    // JVM's tick origin being its start), while JDK 17 and JMC use each chunk's own header; so
    // the chunk then writes its ticks on the JVM's scale, with a header that agrees, and both
    // kinds of readers show the same times. Unset: ticks are CLOCK_MONOTONIC nanoseconds.
    // (Consecutive stackreq chunks share their metadata id, and then the JDK 17 reader too
    // keeps the earlier chunk's header for times: harmless, as long as every chunk of a file
    // states the same clock, off only by wall-clock drift between the chunks.)
    TickScale append_to;
    // Type id for jdk.StackTraceRequest: JFR's id for the registered Java class
    // (EventType.getId()) so that chunk-merging readers see one type; 0 = stackreq's default.
    uint64_t request_event_type_id = 0;
    std::vector<MethodEntry> methods;
    std::vector<StackTraceEntry> stacks;
    std::vector<ThreadEntry> threads;
    std::vector<StackTraceRequestEvent> events;  // in time order
    // requesters[id - 1]: the name of an event's requester_id (requesters.h); written as a pool
    // of java.lang.String keyed by the id, the same in every chunk.
    std::vector<std::string> requesters;
    std::vector<StatisticsEvent> statistics;
};

// Serializes content as one JFR chunk (format 2.0, compressed integers) into out (cleared
// first). Returns false and sets *error when content refers to ids it does not define.
bool write_chunk(const ChunkContent& content, std::string* out, std::string* error);

// Reads the time scale from a JFR chunk header (the first 68 bytes of a .jfr file). Returns
// false when the bytes are not a chunk header of format 1.x or 2.x.
bool read_tick_scale(const void* header, size_t size, TickScale* out);

}  // namespace stackreq
