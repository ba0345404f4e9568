// The JFR metadata of a stackreq chunk, declared once as data: the classes (event types,
// constant-pool types, primitives, annotation types) with their fields and annotations. The
// chunk writer serializes this table into the metadata event and writes every event and pool
// entry in the field order declared here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chunk_writer/jfr_buffer.h"
#include "request/counters.h"
#include "request/request_event.h"

namespace stackreq {
namespace jfr {

constexpr uint64_t kMetadataEventType = 0;
constexpr uint64_t kCheckpointEventType = 1;

// Type ids far above the JVM's. The JVM numbers its own types from a few hundred and gives
// Java event classes their class trace ids (a counter of loaded classes: 1698 on JDK 17,
// 1806 on JDK 25 in a small program). The JDK reader keys constant pools by type id across
// the chunks of one file and `jfr summary` names events by the first chunk's ids, so an id
// shared with the JVM's chunk would mix our pools or our events with its.
constexpr uint64_t kTypeIdBase = 2000000000;

enum TypeId : uint64_t {
    kBoolean = kTypeIdBase,
    kInt,
    kLong,
    kString,
    kThread,
    kClass,
    kPackage,
    kMethod,
    kSymbol,
    kStackTrace,
    kStackFrame,
    kFrameType,
    kStackTraceRequest,  // used only when ChunkContent::request_event_type_id is 0
    kRequestStatistics,
    kAnnotationName,
    kAnnotationLabel,
    kAnnotationDescription,
    kAnnotationCategory,
    kAnnotationExperimental,
    kAnnotationContentType,
    kAnnotationTimestamp,
    kAnnotationTimespan,
    kShort,
    kFloat,
    kThreadState,
    kClassLoader,
    kTypeIdEnd
};

struct AnnotationDef {
    uint64_t type;
    std::vector<std::string> values;  // attribute "value", or "value-0".. when array
    bool array = false;
};

struct FieldDef {
    std::string name;
    uint64_t type;
    bool constant_pool;
    bool array;  // dimension 1
    std::vector<AnnotationDef> annotations;
};

struct ClassDef {
    uint64_t id;
    std::string name;
    std::string super_type;  // "" for none
    bool simple_type;
    std::vector<FieldDef> fields;
    std::vector<AnnotationDef> annotations;
};

// Every class of the metadata, in the order they are written.
const std::vector<ClassDef>& metadata_classes();

// The fields of stackreq.RequestStatistics after startTime, in order; the writer writes exactly
// these values.
struct StatisticsField {
    const char* name;
    const char* label;
    const char* description;
    int64_t (*value)(const StatisticsEvent& statistics);
};
const std::vector<StatisticsField>& statistics_fields();

// FrameType pool: keys and the descriptions JFR readers show (and JMC maps to its frame kinds).
// The JDK's four types have the JDK's keys and descriptions: readers that take the key as the
// frame's type (async-profiler's converter reads it as one byte) see what the JVM's own chunks say.
uint64_t frame_type_key(FrameType type);
const char* frame_type_description(FrameType type);
constexpr int kFrameTypeCount = 5;

// Writes the metadata event (type 0). request_type_id replaces kStackTraceRequest. The metadata
// id is a hash of the content: the JDK reader reuses the previous chunk's metadata when the ids
// are equal, so equal ids must mean equal metadata.
void write_metadata_event(JfrBuffer* out, uint64_t request_type_id, int64_t start_ticks);

}  // namespace jfr
}  // namespace stackreq
