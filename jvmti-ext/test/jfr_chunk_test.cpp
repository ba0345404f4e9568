// write_chunk: header and sizes, the metadata (jdk.StackTraceRequest exactly as JFR declares
// the registered Java class), events and constant pools decoded by that metadata, pools limited
// to what events use, stable content keys across chunks, time scales, and rejected content.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "chunk_writer/jfr_chunk.h"
#include "chunk_writer/jfr_metadata.h"
#include "jfr_test_reader.h"

using namespace stackreq;

namespace {

constexpr int64_t kStartTicks = 5000000000;          // CLOCK_MONOTONIC ns
constexpr int64_t kStartEpoch = 1700000000000000000;  // wall clock of kStartTicks

ChunkContent sample() {
    ChunkContent c;
    c.start_ticks = kStartTicks;
    c.start_epoch_nanos = kStartEpoch;
    c.duration_nanos = 10000;
    c.request_event_type_id = 1843;
    c.methods = {
        {11, "java/lang/String", "hashCode", "()I", 1, false, 0x11},
        {12, "Main", "main", "([Ljava/lang/String;)V", 9, false, 1},
        {13, "", "", "", 0, false},
        {14, "java/lang/invoke/LambdaForm$MH.0x01", "invoke", "()V", 8, true, 0x10},
        {15, "java/lang/Unused", "never", "()V", 1, false, 1},
    };
    c.stacks = {
        {101, false, {{11, 1502, 12, FrameType::kJava}, {12, 9, 0, FrameType::kCompiled}}},
        {102, true, {{14, -1, -3, FrameType::kNative}, {13, -1, -1, FrameType::kJava},
                     {12, 10, 5, FrameType::kInterpreted}}},
        {103, false, {{15, 1, 1, FrameType::kInlined}}},  // used by no event
    };
    c.threads = {
        {1, 4001, 1, "main", "main"},
        {2, 4002, 0, "", "gc"},
        {3, 4003, 3, "unused", "unused"},  // used by no event
    };
    c.events = {
        {kStartTicks + 100, 1, 101, 42, false, false, 2},
        {kStartTicks + 200, 2, 102, -1, false, true, 0},
        {kStartTicks + 300, 1, 0, INT64_MIN, true, false, 2},
        {kStartTicks + 400, 0, 101, INT64_MAX, false, false, 3},
    };
    c.requesters = {"libunused.so", "libjavaProfiler.so", "libstackreq-perf.so"};
    StatisticsEvent s;
    s.start_ticks = kStartTicks + 250;
    s.requested = 10;
    s[Counter::accepted] = 8;
    s[Counter::emitted] = 4;
    s[Counter::dropped] = 3;
    s.pending = 1;
    s[Counter::rejected_other] = 2;
    c.statistics = {s};
    return c;
}

// Every constant-pool reference (in events and in pool entries) is 0 or a key of its pool.
void check_references(const jfrtest::Chunk& chunk, const jfrtest::Class& klass, const jfrtest::Value& value) {
    CHECK(value.items.size() == klass.fields.size());
    for (size_t i = 0; i < klass.fields.size(); i++) {
        const jfrtest::Field& f = klass.fields[i];
        std::vector<const jfrtest::Value*> values;
        if (f.array) {
            for (const jfrtest::Value& v : value.items[i].items) values.push_back(&v);
        } else {
            values.push_back(&value.items[i]);
        }
        for (const jfrtest::Value* v : values) {
            if (f.constant_pool) {
                if (v->number == 0) continue;
                auto pool = chunk.pools.find(f.type);
                CHECK(pool != chunk.pools.end() && pool->second.count(v->number) == 1);
            } else if (!chunk.classes.at(f.type).fields.empty()) {
                check_references(chunk, chunk.classes.at(f.type), *v);
            }
        }
    }
}

void check_references(const jfrtest::Chunk& chunk) {
    for (const auto& event : chunk.event_values) check_references(chunk, chunk.classes.at(event.first), event.second);
    for (const auto& pool : chunk.pools) {
        for (const auto& entry : pool.second) check_references(chunk, chunk.classes.at(pool.first), entry.second);
    }
}

jfrtest::Chunk written(const ChunkContent& c, std::string* bytes = nullptr) {
    std::string out, error;
    CHECK(write_chunk(c, &out, &error));
    CHECK(error.empty());
    jfrtest::Chunk chunk = jfrtest::parse(out);
    if (!chunk.ok) std::fprintf(stderr, "parse: %s\n", chunk.error.c_str());
    CHECK(chunk.ok);
    check_references(chunk);
    if (bytes != nullptr) *bytes = out;
    return chunk;
}

const jfrtest::Element* annotation(const std::vector<jfrtest::Element>& list, const jfrtest::Chunk& chunk,
                                   const std::string& type) {
    for (const jfrtest::Element& a : list) {
        auto klass = chunk.classes.find(std::strtoull(a.attribute("class").c_str(), nullptr, 10));
        if (klass != chunk.classes.end() && klass->second.name == type) return &a;
    }
    return nullptr;
}

std::string symbol(const jfrtest::Chunk& chunk, uint64_t key) {
    const jfrtest::Class* symbol_class = chunk.by_name("jdk.types.Symbol");
    CHECK(symbol_class != nullptr);
    auto pool = chunk.pools.find(symbol_class->id);
    CHECK(pool != chunk.pools.end());
    auto entry = pool->second.find(key);
    CHECK(entry != pool->second.end());
    return entry->second.items[0].text;
}

const jfrtest::Value& pool_entry(const jfrtest::Chunk& chunk, const char* type, uint64_t key) {
    const jfrtest::Class* klass = chunk.by_name(type);
    CHECK(klass != nullptr);
    auto pool = chunk.pools.find(klass->id);
    CHECK(pool != chunk.pools.end());
    auto entry = pool->second.find(key);
    CHECK(entry != pool->second.end());
    return entry->second;
}

size_t pool_size(const jfrtest::Chunk& chunk, const char* type) {
    const jfrtest::Class* klass = chunk.by_name(type);
    CHECK(klass != nullptr);
    auto pool = chunk.pools.find(klass->id);
    return pool == chunk.pools.end() ? 0 : pool->second.size();
}

void test_header_and_layout() {
    std::string bytes;
    jfrtest::Chunk chunk = written(sample(), &bytes);
    CHECK(std::memcmp(bytes.data(), "FLR\0", 4) == 0);
    CHECK(chunk.major == 2 && chunk.minor == 0);
    CHECK(chunk.size == bytes.size());
    CHECK(chunk.start_nanos == kStartEpoch);
    CHECK(chunk.duration_nanos == 10000);
    CHECK(chunk.start_ticks == kStartTicks);
    CHECK(chunk.ticks_per_second == 1000000000);
    // File state 0 (finished), flags: compressed integers, not the final chunk.
    CHECK(chunk.tail[0] == 0 && chunk.tail[1] == 0 && chunk.tail[2] == 0 && chunk.tail[3] == 1);
    // The parser checked that the records tile the chunk; count them by type.
    size_t requests = 0, statistics = 0, metadata = 0, checkpoints = 0;
    for (const jfrtest::Event& e : chunk.events) {
        metadata += e.type == jfr::kMetadataEventType;
        checkpoints += e.type == jfr::kCheckpointEventType;
        requests += e.type == 1843;
        statistics += e.type == jfr::kRequestStatistics;
    }
    CHECK(metadata == 1 && checkpoints == 1 && requests == 4 && statistics == 1);
    CHECK(chunk.events.size() == 7);
}

void test_metadata() {
    jfrtest::Chunk chunk = written(sample());
    // jdk.StackTraceRequest: the fields, order and types that JFR gives the registered Java
    // class io.stackreq.jfr.StackTraceRequestEvent (JDK 17 and 25 agree).
    const jfrtest::Class* request = chunk.by_name("jdk.StackTraceRequest");
    CHECK(request != nullptr);
    CHECK(request->id == 1843);
    CHECK(request->super_type == "jdk.jfr.Event");
    struct Expected {
        const char* name;
        const char* type;
        bool pool;
        const char* label;
    } expected[] = {{"startTime", "long", false, "Start Time"},
                    {"duration", "long", false, "Duration"},
                    {"eventThread", "java.lang.Thread", true, "Event Thread"},
                    {"stackTrace", "jdk.types.StackTrace", true, "Stack Trace"},
                    {"userData", "long", false, "User Data"},
                    {"failed", "boolean", false, "Failed"},
                    {"biased", "boolean", false, "Biased"},
                    {"requester", "java.lang.String", false, "Requester"}};
    CHECK(request->fields.size() == sizeof(expected) / sizeof(expected[0]));
    for (size_t i = 0; i < request->fields.size(); i++) {
        const jfrtest::Field& f = request->fields[i];
        CHECK(f.name == expected[i].name);
        CHECK(chunk.classes.at(f.type).name == expected[i].type);
        CHECK(f.constant_pool == expected[i].pool);
        CHECK(!f.array);
        const jfrtest::Element* label = annotation(f.annotations, chunk, "jdk.jfr.Label");
        CHECK(label != nullptr && label->attribute("value") == expected[i].label);
    }
    const jfrtest::Element* timestamp = annotation(request->fields[0].annotations, chunk, "jdk.jfr.Timestamp");
    CHECK(timestamp != nullptr && timestamp->attribute("value") == "TICKS");
    const jfrtest::Element* timespan = annotation(request->fields[1].annotations, chunk, "jdk.jfr.Timespan");
    CHECK(timespan != nullptr && timespan->attribute("value") == "TICKS");
    // The content type readers derive from @Timestamp comes from @ContentType on its class.
    CHECK(annotation(chunk.by_name("jdk.jfr.Timestamp")->annotations, chunk, "jdk.jfr.ContentType") != nullptr);
    const jfrtest::Element* category = annotation(request->annotations, chunk, "jdk.jfr.Category");
    CHECK(category != nullptr && category->attribute("value-0") == "Java Virtual Machine" &&
          category->attribute("value-1") == "Profiling");
    CHECK(annotation(request->annotations, chunk, "jdk.jfr.Experimental") != nullptr);
    const jfrtest::Element* name = annotation(request->annotations, chunk, "jdk.jfr.Name");
    CHECK(name != nullptr && name->attribute("value") == "jdk.StackTraceRequest");

    // Statistics: startTime, requested, pending, then every counter.
    const jfrtest::Class* stats = chunk.by_name("stackreq.RequestStatistics");
    CHECK(stats != nullptr && stats->super_type == "jdk.jfr.Event");
    CHECK(stats->fields.size() == 1 + jfr::statistics_fields().size());
    CHECK(stats->fields[0].name == "startTime" && stats->fields[1].name == "requested" &&
          stats->fields[2].name == "pending" && stats->fields[3].name == "accepted");
    CHECK(stats->fields.back().name == "rejectedOther");

    // Every referenced type is declared; every id but the request's lies in stackreq's range.
    for (const auto& entry : chunk.classes) {
        const jfrtest::Class& klass = entry.second;
        if (klass.id != 1843) CHECK(klass.id >= jfr::kTypeIdBase && klass.id < jfr::kTypeIdEnd);
        for (const jfrtest::Field& f : klass.fields) {
            CHECK(chunk.classes.count(f.type) == 1);
            for (const jfrtest::Element& a : f.annotations) {
                CHECK(chunk.classes.count(std::strtoull(a.attribute("class").c_str(), nullptr, 10)) == 1);
            }
        }
        for (const jfrtest::Element& a : klass.annotations) {
            CHECK(chunk.classes.count(std::strtoull(a.attribute("class").c_str(), nullptr, 10)) == 1);
        }
    }
    for (const char* type : {"java.lang.Thread", "jdk.types.StackTrace", "jdk.types.StackFrame", "jdk.types.Method",
                             "java.lang.Class", "jdk.types.Package", "jdk.types.Symbol", "jdk.types.FrameType",
                             "long", "int", "boolean", "java.lang.String", "jdk.jfr.Label", "jdk.jfr.Description",
                             "short", "float", "jdk.types.ThreadState", "jdk.types.ClassLoader"}) {
        CHECK(chunk.by_name(type) != nullptr);
    }
    // Thread, Class and Method begin with the JDK's fields in the JDK's order (async-profiler's
    // converter reads them by position); frames are inline, not a pool.
    struct Layout {
        const char* type;
        std::vector<std::string> fields;
    } layouts[] = {{"java.lang.Thread", {"osName", "osThreadId", "javaName", "javaThreadId"}},
                   {"java.lang.Class", {"classLoader", "name", "package", "modifiers", "hidden"}},
                   {"jdk.types.Method", {"type", "name", "descriptor", "modifiers", "hidden"}},
                   {"jdk.types.StackFrame", {"method", "lineNumber", "bytecodeIndex", "type"}}};
    for (const Layout& layout : layouts) {
        const jfrtest::Class* klass = chunk.by_name(layout.type);
        CHECK(klass->fields.size() >= layout.fields.size());
        for (size_t i = 0; i < layout.fields.size(); i++) CHECK(klass->fields[i].name == layout.fields[i]);
    }
    const jfrtest::Field& frames = chunk.by_name("jdk.types.StackTrace")->fields[1];
    CHECK(frames.name == "frames" && frames.array && !frames.constant_pool);
    CHECK(chunk.by_name("jdk.types.Symbol")->simple && chunk.by_name("jdk.types.FrameType")->simple);
    const jfrtest::Element* region = nullptr;
    for (const jfrtest::Element& e : chunk.root.children) region = e.name == "region" ? &e : region;
    CHECK(region != nullptr && region->attribute("gmtOffset") == "0");
}

void test_events() {
    ChunkContent content = sample();
    jfrtest::Chunk chunk = written(content);
    // Events and statistics merged by time: the statistics event (t+250) comes third.
    CHECK(chunk.event_values.size() == 5);
    CHECK(chunk.event_values[2].first == jfr::kRequestStatistics);
    const jfrtest::Value& s = chunk.event_values[2].second;
    CHECK(s.items.size() == 3 + static_cast<size_t>(kCounterCount));
    CHECK(s.items[0].number == static_cast<uint64_t>(kStartTicks + 250));
    // requested, pending, then the counters: accepted, emitted, dropped, ..., rejectedOther.
    CHECK(s.items[1].number == 10 && s.items[2].number == 1 && s.items[3].number == 8 && s.items[4].number == 4 &&
          s.items[5].number == 3 && s.items[3 + static_cast<int>(Counter::rejected_other)].number == 2);
    size_t e = 0;
    for (size_t i = 0; i < chunk.event_values.size(); i++) {
        if (i == 2) continue;
        const StackTraceRequestEvent& want = content.events[e++];
        CHECK(chunk.event_values[i].first == 1843);
        const jfrtest::Value& v = chunk.event_values[i].second;
        CHECK(v.items.size() == 8);
        CHECK(static_cast<int64_t>(v.items[0].number) == want.start_ticks);
        CHECK(v.items[1].number == 0);
        CHECK(v.items[2].number == want.thread_id);
        CHECK(v.items[3].number == want.stack_trace_id);
        CHECK(static_cast<int64_t>(v.items[4].number) == want.user_data);
        CHECK(v.items[5].number == (want.failed ? 1u : 0u));
        CHECK(v.items[6].number == (want.biased ? 1u : 0u));
        // A requester is a reference into the java.lang.String pool, keyed by its id; none is null.
        CHECK(v.items[7].null == (want.requester_id == 0));
        CHECK(v.items[7].number == want.requester_id);
        if (want.requester_id != 0) {
            const jfrtest::Value& name = chunk.pools.at(chunk.class_ids.at("java.lang.String")).at(want.requester_id);
            CHECK(name.text == content.requesters[want.requester_id - 1]);
        }
    }
    // Only the requesters events use are in the pool.
    CHECK(pool_size(chunk, "java.lang.String") == 2);
}

void test_pools() {
    jfrtest::Chunk chunk = written(sample());
    // Only what events reach: threads 1 and 2, stacks 101 and 102, methods 11-14.
    CHECK(pool_size(chunk, "java.lang.Thread") == 2);
    CHECK(pool_size(chunk, "jdk.types.StackTrace") == 2);
    CHECK(pool_size(chunk, "jdk.types.Method") == 4);
    CHECK(pool_size(chunk, "jdk.types.FrameType") == 4);  // no kInlined frame is used
    const jfrtest::Value& main_thread = pool_entry(chunk, "java.lang.Thread", 1);
    CHECK(main_thread.items[0].text == "main" && main_thread.items[1].number == 4001);
    CHECK(main_thread.items[2].text == "main" && main_thread.items[3].number == 1);
    const jfrtest::Value& gc = pool_entry(chunk, "java.lang.Thread", 2);
    CHECK(gc.items[2].null);  // no Java name: null, not ""

    const jfrtest::Value& top = pool_entry(chunk, "jdk.types.StackTrace", 101);
    const jfrtest::Value& stack = pool_entry(chunk, "jdk.types.StackTrace", 102);
    CHECK(stack.items[0].number == 1);  // truncated
    const std::vector<jfrtest::Value>& frames = stack.items[1].items;
    CHECK(frames.size() == 3);
    CHECK(frames[0].items[0].number == 14);
    CHECK(static_cast<int32_t>(frames[0].items[1].number) == -1);
    CHECK(static_cast<int32_t>(frames[0].items[2].number) == -3);
    const jfrtest::Value& native = pool_entry(chunk, "jdk.types.FrameType", frames[0].items[3].number);
    CHECK(native.items[0].text == "Native");
    // The JDK's keys for the JDK's types; stackreq's undetermined "Java" is 6.
    CHECK(frames[0].items[3].number == 3 && frames[1].items[3].number == 6 && frames[2].items[3].number == 0);
    CHECK(top.items[1].items[1].items[3].number == 1);
    CHECK(pool_entry(chunk, "jdk.types.FrameType", frames[1].items[3].number).items[0].text == "Java");
    CHECK(pool_entry(chunk, "jdk.types.FrameType", frames[2].items[3].number).items[0].text == "Interpreted");
    CHECK(pool_entry(chunk, "jdk.types.FrameType", top.items[1].items[1].items[3].number).items[0].text ==
          "JIT compiled");

    // Method -> Class -> Package -> Symbol, slashed as the JVM writes them.
    const jfrtest::Value& hash_code = pool_entry(chunk, "jdk.types.Method", 11);
    CHECK(symbol(chunk, hash_code.items[1].number) == "hashCode");
    CHECK(symbol(chunk, hash_code.items[2].number) == "()I");
    CHECK(hash_code.items[3].number == 1 && hash_code.items[4].number == 0);
    // A class: classLoader (null), name, package, modifiers, hidden.
    const jfrtest::Value& string_class = pool_entry(chunk, "java.lang.Class", hash_code.items[0].number);
    CHECK(string_class.items[0].number == 0);
    CHECK(symbol(chunk, string_class.items[1].number) == "java/lang/String");
    CHECK(string_class.items[3].number == 0x11);  // public final
    const jfrtest::Value& package = pool_entry(chunk, "jdk.types.Package", string_class.items[2].number);
    CHECK(symbol(chunk, package.items[0].number) == "java/lang");
    // The unnamed package is null, as in the JVM's pools.
    const jfrtest::Value& main_class = pool_entry(chunk, "java.lang.Class",
                                                  pool_entry(chunk, "jdk.types.Method", 12).items[0].number);
    CHECK(main_class.items[2].number == 0);
    // Hidden classes keep their name and are marked.
    const jfrtest::Value& lambda = pool_entry(chunk, "jdk.types.Method", 14);
    CHECK(lambda.items[4].number == 1);
    CHECK(pool_entry(chunk, "java.lang.Class", lambda.items[0].number).items[4].number == 1);
    // An unresolved method still has a class and a descriptor: readers fail without them.
    const jfrtest::Value& unknown = pool_entry(chunk, "jdk.types.Method", 13);
    CHECK(unknown.items[0].number != 0);
    CHECK(symbol(chunk, pool_entry(chunk, "java.lang.Class", unknown.items[0].number).items[1].number) == "<unknown>");
    CHECK(symbol(chunk, unknown.items[1].number) == "<unknown>");
    CHECK(symbol(chunk, unknown.items[2].number) == "()V");
    // Each symbol once, each referenced key defined.
    CHECK(pool_size(chunk, "jdk.types.Symbol") == 12);
}

void test_keys_stable_across_chunks() {
    // The JDK reader reuses the previous chunk's pool entry when a key repeats, so a derived
    // key must mean the same value in every chunk, whatever else the chunk holds.
    ChunkContent a = sample();
    ChunkContent b = sample();
    b.events = {{kStartTicks + 100, 2, 102, 1, false, false}};
    jfrtest::Chunk ca = written(a);
    jfrtest::Chunk cb = written(b);
    uint64_t main_a = pool_entry(ca, "jdk.types.Method", 12).items[0].number;
    uint64_t main_b = pool_entry(cb, "jdk.types.Method", 12).items[0].number;
    CHECK(main_a == main_b);
    CHECK(pool_entry(ca, "jdk.types.Method", 12).items[1].number ==
          pool_entry(cb, "jdk.types.Method", 12).items[1].number);
    CHECK(pool_size(cb, "jdk.types.Method") == 3);
    // Same metadata, same metadata id; another request type id, another metadata id.
    CHECK(ca.metadata_id == cb.metadata_id);
    b.request_event_type_id = 1844;
    CHECK(written(b).metadata_id != ca.metadata_id);
}

void test_append_to_scale() {
    ChunkContent c = sample();
    // A JVM recording whose ticks started at its own origin, 10 s of wall clock before ours.
    c.append_to = {300000000, kStartEpoch - 10000000000, 1000000000};
    std::string bytes;
    jfrtest::Chunk chunk = written(c, &bytes);
    CHECK(chunk.ticks_per_second == 1000000000);
    CHECK(chunk.start_ticks == 300000000 + 10000000000);
    CHECK(chunk.start_nanos == kStartEpoch);
    CHECK(static_cast<int64_t>(chunk.event_values[0].second.items[0].number) == chunk.start_ticks + 100);
    // Another tick rate (a TSC clock): ticks scale, the header states the rate.
    c.append_to = {1000, kStartEpoch - 1000000, 2400000000};
    chunk = written(c);
    CHECK(chunk.ticks_per_second == 2400000000);
    CHECK(chunk.start_ticks == 1000 + 2400000);
    CHECK(static_cast<int64_t>(chunk.event_values[0].second.items[0].number) == 1000 + 2400000 + 240);
    TickScale scale;
    CHECK(read_tick_scale(bytes.data(), bytes.size(), &scale));
    CHECK(scale.start_ticks == 300000000 + 10000000000 && scale.start_epoch_nanos == kStartEpoch &&
          scale.ticks_per_second == 1000000000);
    CHECK(!read_tick_scale(bytes.data(), 67, &scale));
    std::string junk = bytes;
    junk[0] = 'X';
    CHECK(!read_tick_scale(junk.data(), junk.size(), &scale));
}

void test_default_type_and_empty_content() {
    ChunkContent c = sample();
    c.request_event_type_id = 0;
    jfrtest::Chunk chunk = written(c);
    CHECK(chunk.by_name("jdk.StackTraceRequest")->id == jfr::kStackTraceRequest);
    ChunkContent empty;
    empty.start_ticks = kStartTicks;
    empty.start_epoch_nanos = kStartEpoch;
    empty.duration_nanos = 0;
    jfrtest::Chunk e = written(empty);
    CHECK(e.pools.empty() && e.event_values.empty());
    // Failed requests without a thread reach no pool at all.
    empty.events = {{kStartTicks, 0, 0, 7, true, false}};
    e = written(empty);
    CHECK(e.pools.empty() && e.event_values.size() == 1);
}

void expect_error(const ChunkContent& c, const char* fragment) {
    std::string out = "stale", error;
    CHECK(!write_chunk(c, &out, &error));
    if (error.find(fragment) == std::string::npos) std::fprintf(stderr, "error was: %s\n", error.c_str());
    CHECK(error.find(fragment) != std::string::npos);
    CHECK(out.empty());
}

// Each case spoils its own copy of sample(), so no case depends on what the one before it changed.
template <typename Spoil>
void expect_error_after(Spoil spoil, const char* fragment) {
    ChunkContent c = sample();
    spoil(c);
    expect_error(c, fragment);
}

void test_rejected_content() {
    expect_error_after([](ChunkContent& c) { c.events[1].thread_id = 9; }, "undefined thread 9");
    expect_error_after([](ChunkContent& c) { c.events[0].stack_trace_id = 77; }, "undefined stack trace 77");
    expect_error_after([](ChunkContent& c) { c.stacks[0].frames[1].method_id = 99; }, "undefined method 99");
    expect_error_after([](ChunkContent& c) { c.methods[1].id = 11; }, "method id 11 is defined twice");
    expect_error_after([](ChunkContent& c) { c.threads[0].id = 0; }, "thread id 0 is 0");
    expect_error_after([](ChunkContent& c) { c.request_event_type_id = jfr::kThread; }, "reserved");
    expect_error_after([](ChunkContent& c) { c.request_event_type_id = 1; }, "reserved");
    expect_error_after([](ChunkContent& c) { c.stacks[0].frames[0].type = static_cast<FrameType>(9); },
                       "unknown frame type");
    // Sparse ids (not index + 1) work as well as dense ones.
    ChunkContent c = sample();
    c.threads[0].id = 1ull << 40;
    c.events[0].thread_id = 1ull << 40;
    c.events[2].thread_id = 1ull << 40;
    jfrtest::Chunk chunk = written(c);
    CHECK(pool_entry(chunk, "java.lang.Thread", 1ull << 40).items[1].number == 4001);
}

}  // namespace

int main() {
    return run_tests("jfr_chunk_test",
                     {test_header_and_layout, test_metadata, test_events, test_pools, test_keys_stable_across_chunks,
                      test_append_to_scale, test_default_type_and_empty_content, test_rejected_content});
}
