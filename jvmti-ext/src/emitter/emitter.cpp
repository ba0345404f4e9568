#include "emitter/emitter.h"

#include <fcntl.h>
#include <malloc.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>

#include "agent/agent_state.h"
#include "agent/log.h"
#include "chunk_writer/chunk_file.h"
#include "chunk_writer/jfr_chunk.h"
#include "chunk_writer/side_files.h"
#include "emitter/event_store.h"
#include "emitter/java_frames.h"
#include "emitter/jvmti_records.h"
#include "emitter/slot_resolver.h"
#include "emitter/thread_identities.h"
#include "native_unwind/arch.h"
#include "native_unwind/native_libraries.h"
#include "request/counters.h"
#include "request/requesters.h"
#include "request/thread_registry.h"
#include "walk/vmstructs_walk.h"

namespace stackreq {

namespace {

bool no_chunk_hook() { return false; }
void no_request_new_chunk(JNIEnv*) {}
void no_settings_poll(JNIEnv*) {}

JfrHooks g_jfr_hooks{no_chunk_hook, no_request_new_chunk, no_settings_poll};

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
// How long the emitter sleeps when nothing wakes it; a request that fills another quarter of the
// ring (RequestRing::publish) and a biased request for another thread wake it at once. Each
// wake-up costs a context switch (docs/performance.md: at a 10 ms period, with the settings poll's
// upcall, about 40% of the emitter's CPU at 1,000 requests a second). The settings poll, the
// unwind tables of libraries loaded later and the pending limit follow this period.
constexpr int64_t kWakeupPeriodNanos = 100 * 1000000;
// How often the events accepted since the last side file are written to a new one while JFR
// writes a chunk (side_files.h): a JVM that dies loses at most the events of this period and of
// the write in progress, under 1 s.
constexpr int64_t kSideFilePeriodNanos = 500 * 1000000;
// Side files this large ask JFR for a new chunk, as pending events do: each write repeats the
// metadata (about 10 KB), so a chunk JFR keeps open for an hour would otherwise gather tens of MB.
constexpr uint64_t kSideFileLimitBytes = 8 << 20;

struct EmitterState {
    // mutex guards the store and the state below; it is held to drain and to collect a chunk's
    // content, never while a chunk is serialized and written, so that the ring keeps being
    // drained meanwhile. write_mutex serializes the writers (taken before mutex).
    std::mutex mutex;
    std::mutex write_mutex;
    std::unique_ptr<SlotResolver> resolver;
    Requesters requesters;
    EventStore store;
    uint64_t event_type_id = 0;
    std::atomic<bool> stopping{false};
    int64_t last_statistics_ticks = 0;
    // file= recording: what has been written to it.
    uint64_t file_written_index = 0;
    int64_t file_written_ticks = 0;
    bool file_started = false;
    // With the chunk hook: every event requested up to here is in a JFR chunk file.
    int64_t jfr_written_ticks = kMin;
    int64_t last_new_chunk_request = 0;
    // The chunk file the JVM writes (ChunkHook's opened), "" when none or finished.
    std::string current_chunk;
    // JFR's own tick scale, measured when the chunk hook was installed: for the side files of a
    // chunk whose file has no header yet (JDK 11 writes a chunk's file when it finishes it).
    TickScale jfr_tick_scale;
    // Every event requested up to here is in a side file or a JFR chunk file.
    int64_t side_written_ticks = kMin;
    // Guarded by write_mutex.
    SideFiles side_files;
    uint64_t side_bytes = 0;  // side_files.bytes(), read under mutex
    bool side_failure_logged = false;
    int64_t last_side_write = 0;  // the emitter thread's only
    // Every request of the first drained_thread_ends threads that ended is in the store.
    uint64_t drained_thread_ends = 0;
};

EmitterState& emitter() {
    static EmitterState state;
    return state;
}

// What collect() needs from the resolver and the thread identities.
class Entries : public EntryLookup {
public:
    explicit Entries(const EmitterState& e) : e_(e) {}
    const MethodEntry* method(uint64_t id) const override { return e_.resolver->methods().entry(id); }
    bool thread(uint64_t key, ThreadEntry* out) const override { return jvmti_records().threads.entry(key, out); }

private:
    const EmitterState& e_;
};

// --- drain: ring -> resolved events in the store ---

// Caller holds e.mutex.
void drain_locked(EmitterState& e, JNIEnv* jni) {
    RequestRing& ring = agent().ring;
    while (RequestSlot* slot = ring.peek()) {
        // Slots stay in order: one still waiting holds back those after it.
        if (!SlotResolver::ready(*slot, monotonic_ticks())) break;
        StackTraceRequestEvent event = e.resolver->resolve(jni, *slot, e.store);
        event.requester_id = e.requesters.id_for(slot->caller);
        ring.release(slot);
        if (event.failed) Counters::add(Counter::failed);
        e.store.add(event);
        Counters::add(Counter::emitted);
    }
}

// Nothing in the ring and no request between its first gate check and its publish.
bool requests_settled(const AgentState& state) {
    return !state.ring.has_unconsumed() && state.in_flight.load(std::memory_order_acquire) == 0;
}

// Waits (bounded) for requests that are still being captured; false when it gave up. A request
// running on this very thread (a flush from inside a signal handler's interrupted code) cannot
// finish while we wait, hence the bound.
bool drain_all_locked(EmitterState& e, JNIEnv* jni) {
    AgentState& state = agent();
    const uint64_t thread_ends = jvmti_records().threads.end_count();
    for (int attempt = 0; attempt < 2000; attempt++) {
        drain_locked(e, jni);
        if (requests_settled(state)) {
            e.drained_thread_ends = thread_ends;
            return true;
        }
        usleep(500);
    }
    Log::warn("gave up waiting for a request still being captured");
    return false;
}

// Drains every request timed up to the time it returns. A request counts itself in flight before
// it reads its time, so one timed before that return value is drained or still in flight when
// the ring and the in-flight count are looked at after it: then they are drained again. Read
// after the drain without that second look, the time let a request that began in between be
// timed before a cut yet stored after it, and no later window took it (StressChurnTest, JDK 25:
// one accepted request of 253,086 without its event). Caller holds e.mutex.
int64_t drain_until_now_locked(EmitterState& e, JNIEnv* jni) {
    AgentState& state = agent();
    for (int attempt = 0;; attempt++) {
        if (!drain_all_locked(e, jni)) return monotonic_ticks();  // gave up, and said so
        const int64_t now = monotonic_ticks();
        if (requests_settled(state)) return now;
        if (attempt == 100) {
            Log::warn("requests kept arriving while a chunk was cut: one of them may be missing from it");
            return now;
        }
    }
}

// --- write: events of the store -> a chunk in a file ---

// Copies the selected events (and a statistics event stamped `until`, kept in the store too
// unless only_in_content) into content, a chunk spanning [first event or `from`, until]. False
// when skip_when_empty and there is no event.
bool collect_window_locked(EmitterState& e, const EventStore::Selection& selection, int64_t from, int64_t until,
                           const TickScale& scale, bool skip_when_empty, ChunkContent* content,
                           bool only_in_content = false) {
    if (!only_in_content) e.store.add_statistics(Counters::snapshot(until));
    e.store.collect(selection, Entries(e), content);
    if (skip_when_empty && content->events.empty()) return false;
    if (only_in_content) content->statistics.push_back(Counters::snapshot(until));
    int64_t first = content->events.empty() ? from : std::min(from, content->events.front().start_ticks);
    content->start_ticks = first;
    content->start_epoch_nanos = epoch_nanos_of(first);
    content->duration_nanos = until > first ? until - first : 0;
    content->request_event_type_id = e.event_type_id;
    content->requesters = e.requesters.names();
    content->append_to = scale;
    return true;
}

// Writes content outside the store's lock, then gives the memory of a large chunk back.
bool write_collected(const ChunkContent& content, const char* path, int flags, std::string* error) {
    bool ok = write_chunk_file(path, flags, content, error);
    if (ok) Log::debug("wrote %zu events to %s", content.events.size(), path);
    malloc_trim(0);
    return ok;
}

// Drops what every destination has: the file= recording (by index) and the JFR chunks (with the
// hook, by time; without it the store keeps what running recordings need).
void trim_locked(EmitterState& e) {
    AgentState& state = agent();
    bool file_pending = state.file_mode && !state.file_failed.load(std::memory_order_acquire);
    uint64_t keep_index = file_pending ? e.file_written_index : e.store.end_index();
    int64_t keep_ticks = g_jfr_hooks.chunk_hook_installed() ? e.jfr_written_ticks + 1 : monotonic_ticks() + 1;
    if (e.store.trim(keep_index, keep_ticks)) e.resolver->forget_stacks();
    if (jvmti_records().threads.holds_ended(e.drained_thread_ends)) {
        jvmti_records().threads.forget_ended(e.drained_thread_ends, e.store.referenced_threads());
    }
}

// Drains every request in flight and lets collect take its content from the store, up to the
// time it is given, under e.mutex; returns what collect returns. Caller holds write_mutex.
template <typename Collect>
auto drain_and_collect(EmitterState& e, JNIEnv* jni, Collect collect) {
    std::lock_guard<std::mutex> guard(e.mutex);
    return collect(drain_until_now_locked(e, jni));
}

// Appends the events requested after the last JFR cut, up to now, to path (on the time scale of
// the file's first chunk), and makes now the cut. Skipped when there is nothing to account for:
// no event and the event type disabled. Caller holds write_mutex, not mutex.
bool append_since_cut(EmitterState& e, JNIEnv* jni, const char* path, std::string* error) {
    TickScale scale;
    if (path != nullptr && !read_first_chunk_scale(path, &scale)) scale = TickScale{};
    ChunkContent content;
    int64_t until = 0;
    bool write = drain_and_collect(e, jni, [&](int64_t now) {
        until = now;
        int64_t after = e.jfr_written_ticks;
        return path != nullptr &&
               collect_window_locked(e, {0, after + 1, until, after + 1}, until, until, scale,
                                     !agent().event_enabled.load(std::memory_order_acquire), &content);
    });
    bool ok = !write || write_collected(content, path, O_APPEND, error);
    std::lock_guard<std::mutex> guard(e.mutex);
    e.jfr_written_ticks = until;
    trim_locked(e);
    return ok;
}

// Writes the events requested since the last JFR cut or side file, up to now, as a side file of
// the chunk the JVM writes (side_files.h): an empty chunk at the JVM's tick 0, then the events on
// the scale of that chunk's header, as an appended chunk has them. Nothing without events or
// before the JVM wrote the chunk's header. Caller holds write_mutex, not mutex.
void write_side_file(EmitterState& e, JNIEnv* jni) {
    std::string chunk;
    {
        std::lock_guard<std::mutex> guard(e.mutex);
        chunk = e.current_chunk;
    }
    TickScale scale;
    if (chunk.empty()) return;
    if (!read_first_chunk_scale(chunk.c_str(), &scale) || scale.ticks_per_second <= 0) {
        std::lock_guard<std::mutex> guard(e.mutex);
        scale = e.jfr_tick_scale;
    }
    if (scale.ticks_per_second <= 0) return;
    ChunkContent content;
    int64_t until = 0;
    bool write = drain_and_collect(e, jni, [&](int64_t now) {
        until = now;
        int64_t after = std::max(e.jfr_written_ticks, e.side_written_ticks);
        return collect_window_locked(e, {0, after + 1, now, after + 1}, now, now, scale, true, &content, true);
    });
    if (!write) return;
    // The empty chunk: the JVM's tick 0 (its start) plus 1 us, so that rounding never makes it
    // negative; its metadata is the events chunk's.
    ChunkContent first;
    first.append_to = scale;
    first.request_event_type_id = content.request_event_type_id;
    const int64_t tick_zero_epoch =
        scale.start_epoch_nanos -
        static_cast<int64_t>(static_cast<__int128>(scale.start_ticks) * 1000000000 / scale.ticks_per_second) + 1000;
    const int64_t now = monotonic_ticks();
    first.start_ticks = now - (epoch_nanos_of(now) - tick_zero_epoch);
    first.start_epoch_nanos = tick_zero_epoch;
    first.duration_nanos = 0;
    std::string bytes, events, error;
    bool ok = write_chunk(first, &bytes, &error) && write_chunk(content, &events, &error);
    if (ok) {
        bytes += events;
        ok = e.side_files.write(chunk, bytes, &error);
    }
    std::lock_guard<std::mutex> guard(e.mutex);
    e.side_bytes = e.side_files.bytes();
    if (ok) {
        e.side_written_ticks = until;
        Log::debug("side file: %zu events up to now beside %s (%zu files)", content.events.size(), chunk.c_str(),
                   e.side_files.count());
    } else if (!e.side_failure_logged) {
        e.side_failure_logged = true;
        Log::warn("%s: a JVM that dies before JFR finishes its chunk loses the stackreq events since then",
                  error.c_str());
    }
}

// file= mode: everything stored since the last write becomes one chunk. Caller holds write_mutex,
// not mutex.
void write_file_chunk(EmitterState& e, JNIEnv* jni, bool final_chunk) {
    AgentState& state = agent();
    if (!state.file_mode || state.file_failed.load(std::memory_order_acquire)) return;
    ChunkContent content;
    int64_t until = 0;
    uint64_t end_index = 0;
    bool write = drain_and_collect(e, jni, [&](int64_t now) {
        until = now;
        end_index = e.store.end_index();
        if (end_index == e.file_written_index && !final_chunk && e.file_started) return false;
        // Events are taken by index only: a request timestamps itself before it is published, so
        // one published after the last cut may carry a time before it.
        EventStore::Selection selection{e.file_written_index, kMin, kMax,
                                        e.file_started ? e.file_written_ticks + 1 : 0};
        int64_t from = e.file_started ? std::min(now, e.file_written_ticks + 1) : now;
        return collect_window_locked(e, selection, from, now, TickScale{}, false, &content);
    });
    if (!write) return;
    std::string error;
    bool ok = write_collected(content, state.options.file.c_str(), e.file_started ? O_APPEND : (O_CREAT | O_TRUNC),
                              &error);
    std::lock_guard<std::mutex> guard(e.mutex);
    if (!ok) {
        Log::warn("%s; file= recording stopped: later requests need a JFR recording", error.c_str());
        state.file_failed.store(true, std::memory_order_release);
    } else {
        e.file_started = true;
        e.file_written_index = end_index;
        e.file_written_ticks = until;
    }
    trim_locked(e);
}

// --- schedule: the emitter thread ---

// Once a statistics period: a statistics event, or (file= mode) true when the file's next chunk
// is due, which the caller writes after releasing the lock.
bool periodic_locked(EmitterState& e) {
    AgentState& state = agent();
    int64_t now = monotonic_ticks();
    if (now - e.last_statistics_ticks < state.options.stats_period_ns) return false;
    e.last_statistics_ticks = now;
    if (state.file_mode) return true;
    if (!g_jfr_hooks.chunk_hook_installed() || state.event_enabled.load(std::memory_order_acquire)) {
        e.store.add_statistics(Counters::snapshot(now));
    }
    trim_locked(e);
    return false;
}

// Too many events wait for JFR to finish the current chunk, or side files grew too large: ask for
// a new one (at most once a second), so that what stackreq holds does not grow with the recording.
bool wants_new_chunk_locked(EmitterState& e) {
    int64_t now = monotonic_ticks();
    if (!g_jfr_hooks.chunk_hook_installed() ||
        (e.store.size() < agent().options.pending_limit && e.side_bytes < kSideFileLimitBytes) ||
        now - e.last_new_chunk_request < 1000000000) {
        return false;
    }
    e.last_new_chunk_request = now;
    return true;
}

void JNICALL emitter_main(jvmtiEnv*, JNIEnv* jni, void*) {
    EmitterState& e = emitter();
    AgentState& state = agent();
    // The emitter is the recorder's own thread, and JFR keeps its own threads out of recordings:
    // a profiler's requests on it are refused (WRONG_PHASE) rather than each yielding a failed
    // event, since it runs only native code and has no Java frame to give.
    ThreadRegistry::set_jfr_excluded(ThreadRegistry::current_tid(), true);
    // A shorter statistics period (stats=) is kept: in file= mode it is the chunk period too.
    const int64_t period = std::min(kWakeupPeriodNanos, std::max<int64_t>(state.options.stats_period_ns, 1000000));
    while (!e.stopping.load()) {
        timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += static_cast<time_t>(period / 1000000000);
        deadline.tv_nsec += static_cast<long>(period % 1000000000);
        if (deadline.tv_nsec >= 1000000000) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000;
        }
        sem_timedwait(&state.emitter_wakeup, &deadline);
        // native=on: objects loaded since the last wake-up become unwindable from here on.
        if (state.options.native_frames || state.options.walker == Walker::kVmStructs) NativeLibraries::refresh();
        bool file_chunk_due;
        bool new_chunk;
        {
            std::lock_guard<std::mutex> guard(e.mutex);
            if (e.stopping.load()) break;
            drain_locked(e, jni);
            file_chunk_due = periodic_locked(e);
            new_chunk = wants_new_chunk_locked(e);
        }
        if (file_chunk_due) {
            std::lock_guard<std::mutex> writer(e.write_mutex);
            write_file_chunk(e, jni, false);
        }
        const int64_t now = monotonic_ticks();
        if (g_jfr_hooks.chunk_hook_installed() && now - e.last_side_write >= kSideFilePeriodNanos) {
            e.last_side_write = now;
            std::lock_guard<std::mutex> writer(e.write_mutex);
            write_side_file(e, jni);
        }
        // JFR calls back into the emitter (chunk_finished) from this thread: no lock held.
        if (new_chunk) g_jfr_hooks.request_new_chunk(jni);
        g_jfr_hooks.poll_settings(jni);  // no lock held either: it may call back into the agent
    }
}

JNIEnv* current_jni() {
    JNIEnv* jni = nullptr;
    if (agent().vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK) return nullptr;
    return jni;
}

}  // namespace

void Emitter::set_jfr_hooks(const JfrHooks& hooks) { g_jfr_hooks = hooks; }

bool Emitter::start(jvmtiEnv* jvmti, JNIEnv* jni) {
    EmitterState& e = emitter();
    const Options& options = agent().options;
    e.resolver.reset(new SlotResolver(jvmti, options.max_depth, options.stack_cache));
    e.last_statistics_ticks = monotonic_ticks();
    jclass thread_class = jni->FindClass("java/lang/Thread");
    jmethodID constructor =
        thread_class == nullptr ? nullptr : jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V");
    jstring name = jni->NewStringUTF("stackreq emitter");
    jobject thread = constructor == nullptr ? nullptr : jni->NewObject(thread_class, constructor, name);
    if (thread == nullptr) {
        if (jni->ExceptionCheck()) jni->ExceptionClear();
        return false;
    }
    return jvmti->RunAgentThread(static_cast<jthread>(thread), emitter_main, nullptr, JVMTI_THREAD_NORM_PRIORITY) ==
           JVMTI_ERROR_NONE;
}

void Emitter::flush_from_any_thread() {
    EmitterState& e = emitter();
    JNIEnv* jni = current_jni();
    if (jni == nullptr || e.resolver == nullptr) return;
    std::lock_guard<std::mutex> writer(e.write_mutex);
    if (agent().file_mode) {
        write_file_chunk(e, jni, false);
    } else {
        std::lock_guard<std::mutex> guard(e.mutex);
        drain_all_locked(e, jni);
    }
}

void Emitter::set_event_type_id(uint64_t id) {
    std::lock_guard<std::mutex> guard(emitter().mutex);
    emitter().event_type_id = id;
}

void Emitter::chunk_finished(JNIEnv* jni, const char* path) {
    EmitterState& e = emitter();
    if (e.resolver == nullptr) return;
    // Up to now rather than to the JVM chunk's end: events requested while JFR was closing the
    // chunk (milliseconds) are in this one too, and when it is the last chunk nothing is left
    // for a recording that has stopped. The appended chunk's own header covers them.
    std::lock_guard<std::mutex> writer(e.write_mutex);
    std::string error;
    if (!append_since_cut(e, jni, path, &error)) {
        // The side files hold some of them: left in the repository, no longer tracked.
        Log::warn("%s: the stackreq events of this chunk are lost", error.c_str());
        e.side_files.forget_all();
    } else {
        // Everything they hold is in the chunk now.
        e.side_files.remove_all();
    }
    std::lock_guard<std::mutex> guard(e.mutex);
    e.side_bytes = 0;
    if (e.current_chunk == path) e.current_chunk.clear();
}

void Emitter::set_jfr_tick_scale(int64_t ticks, int64_t epoch_nanos, int64_t ticks_per_second) {
    EmitterState& e = emitter();
    std::lock_guard<std::mutex> guard(e.mutex);
    e.jfr_tick_scale.start_ticks = ticks;
    e.jfr_tick_scale.start_epoch_nanos = epoch_nanos;
    e.jfr_tick_scale.ticks_per_second = ticks_per_second;
}

void Emitter::chunk_opened(const char* path, bool adopted) {
    EmitterState& e = emitter();
    std::lock_guard<std::mutex> guard(e.mutex);
    if (adopted && !e.current_chunk.empty()) return;
    e.current_chunk = path;
}

bool Emitter::last_recording_stopped(JNIEnv* jni, const char* destination, std::string* error) {
    EmitterState& e = emitter();
    if (e.resolver == nullptr) return true;
    std::lock_guard<std::mutex> writer(e.write_mutex);
    // Without a destination the events after the last cut are dropped from the store: nothing
    // will record them.
    return append_since_cut(e, jni, destination, error);
}

void Emitter::recording_started(int64_t recording_id) {
    std::lock_guard<std::mutex> guard(emitter().mutex);
    emitter().store.recording_started(recording_id, monotonic_ticks());
}

bool Emitter::recording_stopped(JNIEnv* jni, int64_t recording_id, const char* path, std::string* error) {
    EmitterState& e = emitter();
    std::lock_guard<std::mutex> writer(e.write_mutex);
    ChunkContent content;
    bool write;
    {
        std::lock_guard<std::mutex> guard(e.mutex);
        int64_t start = e.store.recording_stopped(recording_id);
        const int64_t now = drain_until_now_locked(e, jni);
        write = start >= 0 && path != nullptr;
        if (write) {
            TickScale scale;
            if (!read_first_chunk_scale(path, &scale)) Log::debug("%s: no JFR chunk header to align times with", path);
            collect_window_locked(e, {0, start, now, start}, start, now, scale, false, &content);
        }
    }
    bool ok = !write || write_collected(content, path, O_APPEND, error);
    if (write && ok) Log::info("appended %zu events to %s", content.events.size(), path);
    std::lock_guard<std::mutex> guard(e.mutex);
    trim_locked(e);
    return ok;
}

void Emitter::shutdown(JNIEnv* jni) {
    EmitterState& e = emitter();
    if (e.resolver == nullptr) return;
    e.stopping.store(true);
    sem_post(&agent().emitter_wakeup);
    std::lock_guard<std::mutex> writer(e.write_mutex);
    write_file_chunk(e, jni, true);
    std::lock_guard<std::mutex> guard(e.mutex);
    drain_all_locked(e, jni);
    StatisticsEvent s = Counters::snapshot(monotonic_ticks());
    std::string line = "requests: requested=" + std::to_string(s.requested);
#define STACKREQ_COUNTER_LOG(name, jfr_name, outcome, label, description) \
    line += std::string(" ") + jfr_name + "=" + std::to_string(s[Counter::name]);
    STACKREQ_COUNTERS(STACKREQ_COUNTER_LOG)
#undef STACKREQ_COUNTER_LOG
    Log::info("%s", line.c_str());
    if (agent().options.walker == Walker::kVmStructs) {
        const JavaFrameFailures& failures = java_frame_failures();
        std::string left, outright;
        for (int i = 1; i < static_cast<int>(VmStructsWalkOutcome::kCount); i++) {
            const auto outcome = static_cast<VmStructsWalkOutcome>(i);
            std::string& list = VmStructsWalk::fails_outright(outcome) ? outright : left;
            list += std::string(list.empty() ? "" : ", ") + vmstructs_walk_outcome_name(outcome) + " " +
                    std::to_string(VmStructsWalk::count(outcome));
        }
        Log::info(
            "walker=vmstructs: %llu VMStructs walks (%llu from a leaf stub's caller, %llu from a leaf call's, %llu from a VM "
            "stub's anchor, %llu from frameless code's caller, %llu entering an interpreted method), %llu left to "
            "AsyncGetCallTrace (%s; %llu failed there), failed without it: %s; VMStructs walks failed for an unknown "
            "method %llu, a bytecode pointer outside its method %llu, undescribed code %llu",
            static_cast<unsigned long long>(VmStructsWalk::walked()),
            static_cast<unsigned long long>(VmStructsWalk::walked_from_stub()),
            static_cast<unsigned long long>(VmStructsWalk::walked_from_leaf_call()),
            static_cast<unsigned long long>(VmStructsWalk::walked_from_blob_anchor()),
            static_cast<unsigned long long>(VmStructsWalk::walked_from_frameless()),
            static_cast<unsigned long long>(VmStructsWalk::walked_entering()),
            static_cast<unsigned long long>(VmStructsWalk::left_to_async_get_call_trace()), left.c_str(),
            static_cast<unsigned long long>(VmStructsWalk::left_and_failed()), outright.c_str(),
            static_cast<unsigned long long>(failures.method_unknown),
            static_cast<unsigned long long>(failures.bcp_outside),
            static_cast<unsigned long long>(failures.code_undescribed));
        if (kWalkBelowSignalHandlers) {
            Log::info("walker=vmstructs: VMStructs walks of the code another signal's handler interrupted: %llu with "
                      "the request's signal at that handler's first instruction, %llu inside it",
                      static_cast<unsigned long long>(VmStructsWalk::walked_at_handler_entry()),
                      static_cast<unsigned long long>(VmStructsWalk::walked_below_handler()));
        }
    }
}

}  // namespace stackreq
