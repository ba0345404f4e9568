// Writes a sample stackreq chunk so that real readers (jfr print/summary, RecordingFile, JMC)
// can be run on it, and prints what every event must read back as, one line per event in the
// form the reader checks print. Also measures the writer.
//
//   jfr_chunk_sample_writer FILE [REQUEST_TYPE_ID [APPEND_TO.jfr]]
//       write the sample, expected lines to stdout; with APPEND_TO, on the time scale of that
//       recording's first chunk, for appending to it
//   jfr_chunk_sample_writer --bench [EVENTS]          time write_chunk on repeated stacks
#include <time.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "chunk_writer/jfr_chunk.h"
#include "chunk_writer/jfr_metadata.h"

using namespace stackreq;

namespace {

int64_t clock_nanos(clockid_t clock) {
    timespec ts;
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

const char* frame_type_name(FrameType type) {
    switch (type) {
        case FrameType::kJava: return "Java";
        case FrameType::kInterpreted: return "Interpreted";
        case FrameType::kCompiled: return "JIT compiled";
        case FrameType::kInlined: return "Inlined";
        case FrameType::kNative: return "Native";
    }
    return "?";
}

// Names as readers show them: dots for slashes.
std::string dotted(const std::string& name) {
    std::string s = name;
    for (char& c : s) c = c == '/' ? '.' : c;
    return s;
}

ChunkContent sample_content() {
    ChunkContent c;
    c.start_ticks = clock_nanos(CLOCK_MONOTONIC);
    c.start_epoch_nanos = clock_nanos(CLOCK_REALTIME);
    c.methods = {
        {11, "java/lang/String", "hashCode", "()I", 0x1, false},
        {12, "com/example/Worker", "run", "()V", 0x1, false},
        {13, "Main", "main", "([Ljava/lang/String;)V", 0x9, false},
        {14, "java/lang/invoke/LambdaForm$MH.0x0000000800c01000", "invoke", "(Ljava/lang/Object;)V", 0x8, true},
        {15, "", "", "", 0, false},  // a method whose class was unloaded before it was resolved
        {16, "java/lang/System", "arraycopy", "(Ljava/lang/Object;ILjava/lang/Object;II)V", 0x109, false},
        {17, "com/example/\xC3\xA9t\xC3\xA9", "caf\xC3\xA9", "()V", 0x1, false},  // é in UTF-8
    };
    c.stacks = {
        {101, false,
         {{16, -1, -3, FrameType::kNative}, {11, 1502, 12, FrameType::kJava}, {12, 40, 7, FrameType::kInterpreted},
          {13, 9, 0, FrameType::kCompiled}}},
        {102, false, {{14, -1, 3, FrameType::kInlined}, {15, -1, -1, FrameType::kJava}, {13, 10, 5, FrameType::kJava}}},
        {103, true, {{17, 3, 1, FrameType::kJava}, {12, 41, 9, FrameType::kJava}}},
        {104, false, {{11, 1, 1, FrameType::kJava}}},  // defined but never referenced: left out
    };
    c.threads = {
        {1, 4001, 1, "main", "main"},
        {2, 4002, 23, "worker-\xE2\x98\x83", "worker-\xE2\x98\x83"},  // snowman
        {3, 4003, 0, "", "native-\xF0\x9F\x98\x80"},                    // no Java name; emoji OS name
        {4, 4004, 24, "unused", "unused"},
    };
    int64_t t = c.start_ticks + 1000000;
    c.events = {
        {t + 0, 1, 101, 1001, false, false},
        {t + 1000, 2, 102, -2, false, false},
        {t + 2000, 1, 103, INT64_MIN, false, true},
        {t + 3000, 3, 0, 1004, true, false},
        {t + 4000, 2, 101, INT64_MAX, false, false},
        {t + 5000, 1, 0, 0, true, true},
    };
    StatisticsEvent s;
    s.start_ticks = t + 4500;
    s.requested = 9;
    s[Counter::accepted] = 7;
    s[Counter::emitted] = 6;
    s[Counter::dropped] = 1;
    s.pending = 0;
    s[Counter::failed] = 2;
    s[Counter::throttled] = 1;
    s[Counter::recovered] = 1;
    s[Counter::rejected_invalid_thread] = 1;
    s[Counter::rejected_other] = 300;
    c.statistics = {s};
    c.duration_nanos = 1000000 + 6000;
    return c;
}

const MethodEntry* method_of(const ChunkContent& c, uint64_t id) {
    for (const MethodEntry& m : c.methods) if (m.id == id) return &m;
    return nullptr;
}

// One line per event in the form the Java reader checks print, so `diff` compares them.
void print_expected(const ChunkContent& c) {
    auto epoch = [&](int64_t ticks) { return c.start_epoch_nanos + (ticks - c.start_ticks); };
    size_t s = 0;
    for (const StackTraceRequestEvent& e : c.events) {
        for (; s < c.statistics.size() && c.statistics[s].start_ticks <= e.start_ticks; s++) {
            const StatisticsEvent& st = c.statistics[s];
            std::printf("stackreq.RequestStatistics time=%" PRId64, epoch(st.start_ticks));
            for (const jfr::StatisticsField& field : jfr::statistics_fields()) {
                std::printf(" %s=%" PRId64, field.name, field.value(st));
            }
            std::printf("\n");
        }
        std::string thread = "null";
        for (const ThreadEntry& t : c.threads) {
            if (t.id != e.thread_id) continue;
            thread = (t.java_name.empty() ? std::string("null") : t.java_name) + "/" + t.os_name + "/" +
                     std::to_string(t.os_thread_id) + "/" +
                     std::to_string(t.java_thread_id == 0 ? -1 : t.java_thread_id);
        }
        std::string stack = "null";
        for (const StackTraceEntry& k : c.stacks) {
            if (k.id != e.stack_trace_id) continue;
            stack = std::string(k.truncated ? "truncated" : "complete");
            for (const StackFrameEntry& f : k.frames) {
                const MethodEntry* m = method_of(c, f.method_id);
                stack += " | " + (m->class_name.empty() ? std::string("<unknown>") : dotted(m->class_name)) + "." +
                         (m->method_name.empty() ? std::string("<unknown>") : m->method_name) +
                         (m->descriptor.empty() ? std::string("()V") : m->descriptor) + " line=" +
                         std::to_string(f.line) + " bci=" + std::to_string(f.bci) + " type=" + frame_type_name(f.type) +
                         " modifiers=" + std::to_string(m->modifiers) + " hidden=" + (m->hidden ? "true" : "false");
            }
        }
        std::printf("jdk.StackTraceRequest time=%" PRId64 " duration=0 userData=%" PRId64
                    " failed=%s biased=%s thread=%s stack=%s\n",
                    epoch(e.start_ticks), e.user_data, e.failed ? "true" : "false", e.biased ? "true" : "false",
                    thread.c_str(), stack.c_str());
    }
}

int write_sample(const char* path, uint64_t request_type_id, const char* append_to) {
    ChunkContent content = sample_content();
    content.request_event_type_id = request_type_id;
    if (append_to != nullptr) {
        unsigned char header[68];
        FILE* f = std::fopen(append_to, "rb");
        bool ok = f != nullptr && std::fread(header, 1, sizeof(header), f) == sizeof(header) &&
                  read_tick_scale(header, sizeof(header), &content.append_to);
        if (f != nullptr) std::fclose(f);
        if (!ok) {
            std::fprintf(stderr, "%s: not a JFR file\n", append_to);
            return 1;
        }
    }
    std::string bytes, error;
    if (!write_chunk(content, &bytes, &error)) {
        std::fprintf(stderr, "write_chunk: %s\n", error.c_str());
        return 1;
    }
    FILE* f = std::fopen(path, "wb");
    if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0) {
        std::fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    print_expected(content);
    return 0;
}

// Many events over few stacks and threads, the emitter's steady state.
int bench(size_t events) {
    ChunkContent c;
    c.start_ticks = clock_nanos(CLOCK_MONOTONIC);
    c.start_epoch_nanos = clock_nanos(CLOCK_REALTIME);
    for (uint64_t m = 1; m <= 200; m++) {
        c.methods.push_back({m, "com/example/pkg" + std::to_string(m % 7) + "/Class" + std::to_string(m / 3),
                             "method" + std::to_string(m), "(IJ)Ljava/lang/String;", 1, false});
    }
    for (uint64_t k = 1; k <= 100; k++) {
        StackTraceEntry stack{k, false, {}};
        for (uint64_t d = 0; d < 20; d++) {
            stack.frames.push_back({1 + (k * 7 + d * 13) % 200, static_cast<int32_t>(d * 3), static_cast<int32_t>(d),
                                    FrameType::kJava});
        }
        c.stacks.push_back(stack);
    }
    for (uint64_t t = 1; t <= 16; t++) {
        c.threads.push_back({t, static_cast<int64_t>(1000 + t), static_cast<int64_t>(t), "thread-" + std::to_string(t),
                             "thread-" + std::to_string(t)});
    }
    for (size_t i = 0; i < events; i++) {
        c.events.push_back({c.start_ticks + static_cast<int64_t>(i) * 1000, 1 + i % 16, 1 + (i * 31) % 100,
                            static_cast<int64_t>(i * 2654435761u), i % 50 == 0, false});
    }
    c.duration_nanos = static_cast<int64_t>(events) * 1000;
    std::string bytes, error;
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        int64_t t0 = clock_nanos(CLOCK_MONOTONIC);
        if (!write_chunk(c, &bytes, &error)) {
            std::fprintf(stderr, "write_chunk: %s\n", error.c_str());
            return 1;
        }
        double ns = static_cast<double>(clock_nanos(CLOCK_MONOTONIC) - t0) / static_cast<double>(events);
        best = ns < best ? ns : best;
    }
    std::printf("%zu events, 100 stacks x 20 frames, 16 threads: %zu bytes, best of 5: %.1f ns/event\n", events,
                bytes.size(), best);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "--bench") == 0) {
        return bench(argc >= 3 ? std::strtoull(argv[2], nullptr, 10) : 1000000);
    }
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE [REQUEST_TYPE_ID [APPEND_TO.jfr]] | --bench [EVENTS]\n", argv[0]);
        return 2;
    }
    return write_sample(argv[1], argc >= 3 ? std::strtoull(argv[2], nullptr, 10) : 0, argc >= 4 ? argv[3] : nullptr);
}
