#include "chunk_writer/jfr_metadata.h"

#include <unordered_map>
#include <utility>

#include "chunk_writer/jfr_hash.h"

namespace stackreq {
namespace jfr {

namespace {

AnnotationDef label(const char* text) { return {kAnnotationLabel, {text}}; }
AnnotationDef description(const char* text) { return {kAnnotationDescription, {text}}; }
AnnotationDef category() { return {kAnnotationCategory, {"Java Virtual Machine", "Profiling"}, true}; }

FieldDef value_field(uint64_t type, const char* name, const char* label_text) {
    return {name, type, false, false, {label(label_text)}};
}
FieldDef pool_field(uint64_t type, const char* name, const char* label_text) {
    return {name, type, true, false, {label(label_text)}};
}

FieldDef start_time_field() {
    return {"startTime", kLong, false, false, {label("Start Time"), {kAnnotationTimestamp, {"TICKS"}}}};
}

ClassDef annotation_class(uint64_t id, const char* name, std::vector<FieldDef> fields,
                          std::vector<AnnotationDef> annotations) {
    return {id, name, "java.lang.annotation.Annotation", false, std::move(fields), std::move(annotations)};
}

// Names, labels and descriptions below are those of the JDK's own metadata (JDK 17 and 25,
// read back from `jfr metadata` and the raw metadata event) so readers present our types and
// events exactly as theirs. jdk.StackTraceRequest in particular must equal what JFR derives
// from io.stackreq.jfr.StackTraceRequestEvent: JMC shows two event types when the same name
// arrives with different fields or annotations in two chunks of one file.
std::vector<ClassDef> build_classes() {
    FieldDef value_string{"value", kString, false, false, {}};
    FieldDef value_strings{"value", kString, false, true, {}};
    std::vector<ClassDef> c;
    // Every type a reader may insist on is declared, used or not: Grafana Pyroscope's jfr-parser
    // stops at a chunk that lacks short, float or jdk.types.ThreadState.
    c.push_back({kBoolean, "boolean", "", false, {}, {}});
    c.push_back({kInt, "int", "", false, {}, {}});
    c.push_back({kLong, "long", "", false, {}, {}});
    c.push_back({kShort, "short", "", false, {}, {}});
    c.push_back({kFloat, "float", "", false, {}, {}});
    c.push_back({kString, "java.lang.String", "", false, {}, {}});
    // Thread, Class, Method and StackFrame start with the JDK's fields in the JDK's order:
    // async-profiler's converter reads their pools by position.
    c.push_back({kThread, "java.lang.Thread", "", false,
                 {value_field(kString, "osName", "OS Thread Name"), value_field(kLong, "osThreadId", "OS Thread Id"),
                  value_field(kString, "javaName", "Java Thread Name"),
                  value_field(kLong, "javaThreadId", "Java Thread Id"),
                  value_field(kBoolean, "virtual", "Virtual Thread")},
                 {label("Thread")}});
    // The class loader is null (AsyncGetCallTrace frames do not tell it); the JVM's Package also
    // has module and exported: readers treat missing fields as absent.
    c.push_back({kClass, "java.lang.Class", "", false,
                 {pool_field(kClassLoader, "classLoader", "Class Loader"), pool_field(kSymbol, "name", "Name"),
                  pool_field(kPackage, "package", "Package"), value_field(kInt, "modifiers", "Access Modifiers"),
                  value_field(kBoolean, "hidden", "Hidden")},
                 {label("Java Class")}});
    c.push_back({kClassLoader, "jdk.types.ClassLoader", "", false,
                 {pool_field(kClass, "type", "Type"), pool_field(kSymbol, "name", "Name")},
                 {label("Java Class Loader")}});
    c.push_back({kPackage, "jdk.types.Package", "", false, {pool_field(kSymbol, "name", "Name")}, {label("Package")}});
    c.push_back({kMethod, "jdk.types.Method", "", false,
                 {pool_field(kClass, "type", "Type"), pool_field(kSymbol, "name", "Name"),
                  pool_field(kSymbol, "descriptor", "Descriptor"), value_field(kInt, "modifiers", "Access Modifiers"),
                  value_field(kBoolean, "hidden", "Hidden")},
                 {label("Java Method")}});
    c.push_back({kSymbol, "jdk.types.Symbol", "", true, {value_field(kString, "string", "String")}, {label("Symbol")}});
    // Frames inline (not a pool of their own): the JVM writes them so, and Pyroscope skips
    // frames given as pool references.
    c.push_back({kStackTrace, "jdk.types.StackTrace", "", false,
                 {value_field(kBoolean, "truncated", "Truncated"),
                  {"frames", kStackFrame, false, true, {label("Stack Frames")}}},
                 {label("Stacktrace")}});
    c.push_back({kStackFrame, "jdk.types.StackFrame", "", false,
                 {pool_field(kMethod, "method", "Java Method"), value_field(kInt, "lineNumber", "Line Number"),
                  value_field(kInt, "bytecodeIndex", "Bytecode Index"), pool_field(kFrameType, "type", "Frame Type")},
                 {}});
    c.push_back({kFrameType, "jdk.types.FrameType", "", true, {value_field(kString, "description", "Description")},
                 {label("Frame type")}});
    c.push_back({kThreadState, "jdk.types.ThreadState", "", true, {value_field(kString, "name", "Name")},
                 {label("Java Thread State")}});

    c.push_back({kStackTraceRequest, "jdk.StackTraceRequest", "jdk.jfr.Event", false,
                 {start_time_field(),
                  {"duration", kLong, false, false, {label("Duration"), {kAnnotationTimespan, {"TICKS"}}}},
                  {"eventThread", kThread, true, false,
                   {label("Event Thread"), description("Thread in which event was committed in")}},
                  {"stackTrace", kStackTrace, true, false,
                   {label("Stack Trace"),
                    description("Stack Trace starting from the method the event was committed in")}},
                  {"userData", kLong, false, false,
                   {label("User Data"),
                    description("Value passed by the requesting agent, used to join the event with its own sample")}},
                  {"failed", kBoolean, false, false,
                   {label("Failed"), description("No stack trace could be taken for this request")}},
                  {"biased", kBoolean, false, false,
                   {label("Biased"), description("The stack trace was taken at the thread's next safepoint rather "
                                                 "than at the requested instant")}},
                  {"requester", kString, false, false,
                   {label("Requester"),
                    description("File name of the library that called RequestStackTrace (stackreq's addition to "
                                "the JDK's event)")}}},
                 {{kAnnotationName, {"jdk.StackTraceRequest"}}, label("Stack Trace Request"),
                  description("Stack trace of a thread at the moment a profiler requested it, free of safepoint bias "
                              "unless biased is true"),
                  category(), {kAnnotationExperimental, {}}}});

    std::vector<FieldDef> statistics{start_time_field()};
    for (const StatisticsField& f : statistics_fields()) {
        statistics.push_back({f.name, kLong, false, false, {label(f.label), description(f.description)}});
    }
    c.push_back({kRequestStatistics, "stackreq.RequestStatistics", "jdk.jfr.Event", false, std::move(statistics),
                 {{kAnnotationName, {"stackreq.RequestStatistics"}}, label("Stack Trace Request Statistics"),
                  description("Accounting of stackreq's stack trace requests since the agent started: "
                              "accepted = emitted + dropped + pending"),
                  category()}});

    c.push_back(annotation_class(kAnnotationName, "jdk.jfr.Name", {value_string}, {}));
    c.push_back(annotation_class(kAnnotationLabel, "jdk.jfr.Label", {value_string}, {}));
    c.push_back(annotation_class(kAnnotationDescription, "jdk.jfr.Description", {value_string}, {}));
    c.push_back(annotation_class(kAnnotationCategory, "jdk.jfr.Category", {value_strings}, {}));
    c.push_back(annotation_class(kAnnotationExperimental, "jdk.jfr.Experimental", {},
                                 {label("Experimental"),
                                  description("Element is not to be shown to a user by default")}));
    // Readers find a field's content type (what makes ticks a time) through the @ContentType
    // on the annotation's own class, so Timestamp and Timespan carry it as in the JDK.
    c.push_back(annotation_class(kAnnotationContentType, "jdk.jfr.ContentType", {},
                                 {label("Content Type"), description("Semantic meaning of a value")}));
    c.push_back(annotation_class(kAnnotationTimestamp, "jdk.jfr.Timestamp", {value_string},
                                 {{kAnnotationContentType, {}}, label("Timestamp"), description("A point in time")}));
    c.push_back(annotation_class(kAnnotationTimespan, "jdk.jfr.Timespan", {value_string},
                                 {{kAnnotationContentType, {}}, label("Timespan"),
                                  description("A duration, measured in nanoseconds by default")}));
    return c;
}

// The metadata event's element tree before the names are replaced by string-table indices.
struct Element {
    const char* name;
    std::vector<std::pair<std::string, std::string>> attributes;
    std::vector<Element> children;
};

Element annotation_element(const AnnotationDef& a) {
    Element e{"annotation", {{"class", std::to_string(a.type)}}, {}};
    if (a.array) {
        for (size_t i = 0; i < a.values.size(); i++) {
            e.attributes.push_back({"value-" + std::to_string(i), a.values[i]});
        }
    } else if (!a.values.empty()) {
        e.attributes.push_back({"value", a.values[0]});
    }
    return e;
}

Element build_tree(uint64_t request_type_id) {
    auto id_of = [&](uint64_t id) { return std::to_string(id == kStackTraceRequest ? request_type_id : id); };
    Element metadata{"metadata", {}, {}};
    for (const ClassDef& c : metadata_classes()) {
        Element klass{"class", {{"name", c.name}}, {}};
        if (!c.super_type.empty()) klass.attributes.push_back({"superType", c.super_type});
        if (c.simple_type) klass.attributes.push_back({"simpleType", "true"});
        klass.attributes.push_back({"id", id_of(c.id)});
        for (const FieldDef& f : c.fields) {
            Element field{"field", {{"name", f.name}, {"class", id_of(f.type)}}, {}};
            if (f.constant_pool) field.attributes.push_back({"constantPool", "true"});
            if (f.array) field.attributes.push_back({"dimension", "1"});
            for (const AnnotationDef& a : f.annotations) field.children.push_back(annotation_element(a));
            klass.children.push_back(std::move(field));
        }
        for (const AnnotationDef& a : c.annotations) klass.children.push_back(annotation_element(a));
        metadata.children.push_back(std::move(klass));
    }
    Element region{"region", {{"locale", "en"}, {"gmtOffset", "0"}, {"dst", "0"}}, {}};
    return Element{"root", {}, {std::move(metadata), std::move(region)}};
}

class StringTable {
public:
    uint32_t index(const std::string& s) {
        auto found = index_.find(s);
        if (found != index_.end()) return found->second;
        uint32_t i = static_cast<uint32_t>(strings_.size());
        strings_.push_back(s);
        index_.emplace(s, i);
        return i;
    }
    void collect(const Element& e) {
        index(e.name);
        for (const auto& attribute : e.attributes) {
            index(attribute.first);
            index(attribute.second);
        }
        for (const Element& child : e.children) collect(child);
    }
    void write(JfrBuffer* out) const {
        out->put_varint32(static_cast<uint32_t>(strings_.size()));
        for (const std::string& s : strings_) out->put_string(s);
    }

private:
    std::vector<std::string> strings_;
    std::unordered_map<std::string, uint32_t> index_;
};

void write_element(const Element& e, StringTable* strings, JfrBuffer* out) {
    out->put_varint32(strings->index(e.name));
    out->put_varint32(static_cast<uint32_t>(e.attributes.size()));
    for (const auto& attribute : e.attributes) {
        out->put_varint32(strings->index(attribute.first));
        out->put_varint32(strings->index(attribute.second));
    }
    out->put_varint32(static_cast<uint32_t>(e.children.size()));
    for (const Element& child : e.children) write_element(child, strings, out);
}

}  // namespace

const std::vector<StatisticsField>& statistics_fields() {
    static const std::vector<StatisticsField> fields{
        {"requested", "Requested", "Calls to RequestStackTrace",
         [](const StatisticsEvent& s) { return s.requested; }},
        {"pending", "Pending", "Accepted requests not yet emitted", [](const StatisticsEvent& s) { return s.pending; }},
#define STACKREQ_COUNTER_FIELD(name, jfr_name, outcome, label, description) \
    {jfr_name, label, description, [](const StatisticsEvent& s) { return s[Counter::name]; }},
        STACKREQ_COUNTERS(STACKREQ_COUNTER_FIELD)
#undef STACKREQ_COUNTER_FIELD
    };
    return fields;
}

const std::vector<ClassDef>& metadata_classes() {
    static const std::vector<ClassDef> classes = build_classes();
    return classes;
}

uint64_t frame_type_key(FrameType type) {
    // The JDK's keys (JfrFrameType: interpreted 0, JIT compiled 1, inlined 2, native 3). stackreq's
    // undetermined Java frame takes 6, which async-profiler's converter reads as a compiled Java
    // frame (its C1 type) with its class: 4 and 5 would be C++ and kernel frames shown without
    // one, and 7 or more fall outside the types it knows.
    switch (type) {
        case FrameType::kInterpreted:
            return 0;
        case FrameType::kCompiled:
            return 1;
        case FrameType::kInlined:
            return 2;
        case FrameType::kNative:
            return 3;
        case FrameType::kJava:
            break;
    }
    return 6;
}

const char* frame_type_description(FrameType type) {
    switch (type) {
        case FrameType::kJava:
            return "Java";  // a Java frame whose type was not determined
        case FrameType::kInterpreted:
            return "Interpreted";
        case FrameType::kCompiled:
            return "JIT compiled";
        case FrameType::kInlined:
            return "Inlined";
        case FrameType::kNative:
            return "Native";
    }
    return "Unknown";
}

void write_metadata_event(JfrBuffer* out, uint64_t request_type_id, int64_t start_ticks) {
    Element root = build_tree(request_type_id);
    StringTable strings;
    strings.collect(root);
    JfrBuffer body;
    strings.write(&body);
    write_element(root, &strings, &body);
    uint64_t metadata_id = KeyHash(0x6d657461).bytes(body.data(), body.size()).key();

    size_t start = out->begin_sized();
    out->put_varint64(kMetadataEventType);
    out->put_varint64(start_ticks);
    out->put_varint64(uint64_t{0});  // duration
    out->put_varint64(metadata_id);
    out->put_bytes(body.data(), body.size());
    out->end_sized(start);
}

}  // namespace jfr
}  // namespace stackreq
