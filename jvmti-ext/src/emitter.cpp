#include "emitter.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "agent_state.h"
#include "chunk_hook.h"
#include "counters.h"
#include "event_store.h"
#include "jfr_chunk.h"
#include "log.h"
#include "method_resolver.h"
#include "output_file.h"
#include "thread_directory.h"
#include "walked_stack_cache.h"

namespace stackreq {

namespace {

struct EmitterState {
    std::mutex mutex;
    MethodResolver* methods = nullptr;
    ThreadDirectory threads;
    EventStore store;
    WalkedStackCache walked_stacks;
    uint64_t event_type_id = 0;
    std::atomic<bool> stopping{false};
    std::atomic<bool> thread_exited{false};
    int64_t last_statistics_ticks = 0;
    // file= mode
    uint64_t file_written_index = 0;
    int64_t file_written_ticks = 0;
    bool file_started = false;
    bool file_failed = false;
    // With the chunk hook: every event requested up to here is in a JFR chunk file.
    int64_t jfr_written_ticks = std::numeric_limits<int64_t>::min();
    int64_t last_new_chunk_request = 0;
    std::vector<jvmtiFrameInfo> frame_buffer;
    std::vector<StackFrameEntry> frames;
};

EmitterState& emitter() {
    static EmitterState state;
    return state;
}

int64_t epoch_nanos_of(int64_t ticks) {
    timespec realtime;
    clock_gettime(CLOCK_REALTIME, &realtime);
    int64_t now_epoch = static_cast<int64_t>(realtime.tv_sec) * 1000000000 + realtime.tv_nsec;
    return now_epoch - (monotonic_ticks() - ticks);
}

StatisticsEvent snapshot(int64_t ticks) {
    StatisticsEvent s{};
    s.start_ticks = ticks;
    s.requested = Counters::requests();
    s.emitted = Counters::get(Counter::emitted);
    s.dropped = Counters::get(Counter::dropped);
    s.accepted = Counters::get(Counter::accepted);
    s.pending = s.accepted - s.emitted - s.dropped;
    s.failed = Counters::get(Counter::failed);
    s.throttled = Counters::get(Counter::throttled);
    s.recovered = Counters::get(Counter::recovered);
    s.rejected_wrong_phase = Counters::get(Counter::rejected_wrong_phase);
    s.rejected_not_available = Counters::get(Counter::rejected_not_available);
    s.rejected_invalid_thread = Counters::get(Counter::rejected_invalid_thread);
    s.rejected_thread_not_alive = Counters::get(Counter::rejected_thread_not_alive);
    s.rejected_unsupported = Counters::get(Counter::rejected_unsupported);
    s.rejected_other = Counters::get(Counter::rejected_other);
    return s;
}

void append_frames_from_walk(EmitterState& e, const RequestSlot& slot) {
    for (int32_t i = 0; i < slot.frame_count; i++) {
        const CallFrame& frame = slot.frames[i];
        StackFrameEntry entry;
        // AsyncGetCallTrace marks native frames with bci -3 (forte.cpp).
        bool native = frame.bci_or_marker == -3;
        entry.bci = native ? -1 : frame.bci_or_marker;
        entry.method_id = e.methods->resolve(frame.method, entry.bci, &entry.line);
        entry.type = native ? FrameType::kNative : FrameType::kJava;
        e.frames.push_back(entry);
    }
}

// The biased path: JVMTI GetStackTrace suspends the target at its next safepoint.
bool append_frames_at_safepoint(EmitterState& e, JNIEnv* jni, jobject thread, bool* truncated) {
    AgentState& state = agent();
    jint count = 0;
    e.frame_buffer.resize(state.ring.max_depth() + 1);
    if (state.jvmti->GetStackTrace(static_cast<jthread>(thread), 0, static_cast<jint>(e.frame_buffer.size()),
                                   e.frame_buffer.data(), &count) != JVMTI_ERROR_NONE ||
        count <= 0) {
        return false;
    }
    (void)jni;
    *truncated = count > static_cast<jint>(state.ring.max_depth());
    if (*truncated) count = static_cast<jint>(state.ring.max_depth());
    for (jint i = 0; i < count; i++) {
        const jvmtiFrameInfo& frame = e.frame_buffer[i];
        StackFrameEntry entry;
        bool native = frame.location < 0;
        entry.bci = native ? -1 : static_cast<int32_t>(frame.location);
        entry.method_id = e.methods->resolve(frame.method, entry.bci, &entry.line);
        entry.type = native ? FrameType::kNative : FrameType::kJava;
        e.frames.push_back(entry);
    }
    return true;
}

void store_slot(EmitterState& e, JNIEnv* jni, RequestSlot& slot) {
    StoredEvent event{slot.ticks, 0, 0, slot.user_data, true, slot.kind != RequestKind::kWalked};
    e.frames.clear();
    bool truncated = slot.truncated;
    bool captured = false;
    switch (slot.kind) {
        case RequestKind::kWalked:
            event.thread_key = e.threads.key_for_tid(slot.tid);
            if (slot.frame_count > 0) {
                event.stack_id = e.walked_stacks.find(slot.frames, slot.frame_count, truncated);
                if (event.stack_id == 0) {
                    append_frames_from_walk(e, slot);
                    event.stack_id = e.store.intern_stack(e.frames, truncated);
                    e.walked_stacks.remember(slot.frames, slot.frame_count, truncated, event.stack_id);
                }
                captured = true;
            }
            break;
        case RequestKind::kBiasedSelf: {
            event.thread_key = e.threads.key_for_tid(slot.tid);
            jobject thread = e.threads.thread_of_tid(jni, slot.tid);
            if (thread != nullptr) {
                captured = append_frames_at_safepoint(e, jni, thread, &truncated);
                jni->DeleteLocalRef(thread);
            }
            break;
        }
        case RequestKind::kBiasedOther:
            event.thread_key = e.threads.key_for_object(agent().jvmti, jni, slot.thread_ref);
            captured = append_frames_at_safepoint(e, jni, slot.thread_ref, &truncated);
            jni->DeleteGlobalRef(slot.thread_ref);
            slot.thread_ref = nullptr;
            break;
    }
    if (!captured) {
        Counters::add(Counter::failed);
    } else {
        event.failed = false;
        // Stack ids start at 1: 0 means the stack was taken here, not found by the walk cache.
        if (event.stack_id == 0) event.stack_id = e.store.intern_stack(e.frames, truncated);
    }
    e.store.add(event);
    Counters::add(Counter::emitted);
}

// Caller holds e.mutex.
void drain_locked(EmitterState& e, JNIEnv* jni) {
    RequestRing& ring = agent().ring;
    e.methods->set_jni(jni);
    while (RequestSlot* slot = ring.peek()) {
        store_slot(e, jni, *slot);
        ring.release(slot);
    }
}

// Waits (bounded) for requests that are still being captured. A request running on this very
// thread (a flush from inside a signal handler's interrupted code) cannot finish while we wait,
// hence the bound.
void drain_all_locked(EmitterState& e, JNIEnv* jni) {
    AgentState& state = agent();
    for (int attempt = 0; attempt < 2000; attempt++) {
        drain_locked(e, jni);
        if (!state.ring.has_unconsumed() && state.in_flight.load(std::memory_order_acquire) == 0) return;
        usleep(500);
    }
    Log::warn("gave up waiting for a request still being captured");
}

bool write_all(int fd, const std::string& bytes) {
    size_t written = 0;
    while (written < bytes.size()) {
        ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        written += static_cast<size_t>(n);
    }
    return true;
}

bool write_chunk_to(const char* path, int flags, const ChunkContent& content, std::string* error) {
    std::string bytes;
    if (!write_chunk(content, &bytes, error)) return false;
    int fd = open_output_file(path, flags);
    if (fd < 0) {
        *error = std::string("cannot open ") + path + ": " + std::strerror(errno);
        return false;
    }
    bool ok = write_all(fd, bytes);
    int saved_errno = errno;
    if (close(fd) != 0) ok = false;
    if (!ok) *error = std::string("cannot write ") + path + ": " + std::strerror(saved_errno);
    return ok;
}

// The JDK 25 reader times every chunk of a file by the first chunk's header (see ChunkContent::
// append_to), so a chunk appended to a JVM recording is written on that recording's tick scale.
// Returns false when the file does not start with a chunk header.
bool read_first_chunk_header(const char* path, TickScale* scale) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    char header[68];
    ssize_t n = pread(fd, header, sizeof(header), 0);
    close(fd);
    return n == static_cast<ssize_t>(sizeof(header)) && read_tick_scale(header, sizeof(header), scale);
}

void fill_chunk_header(EmitterState& e, int64_t from_ticks, int64_t to_ticks, ChunkContent* content) {
    content->start_ticks = from_ticks;
    content->start_epoch_nanos = epoch_nanos_of(from_ticks);
    content->duration_nanos = to_ticks > from_ticks ? to_ticks - from_ticks : 0;
    content->request_event_type_id = e.event_type_id;
}

// Drops what every destination has: the file= recording (by index) and the JFR chunks (with the
// hook, by time; without it the store keeps what running recordings need).
void trim_locked(EmitterState& e) {
    bool file_pending = agent().file_mode && !e.file_failed;
    uint64_t keep_index = file_pending ? e.file_written_index : e.store.end_index();
    int64_t keep_ticks = ChunkHook::installed() ? e.jfr_written_ticks + 1 : monotonic_ticks() + 1;
    e.store.trim(keep_index, keep_ticks);
}

// file= mode: everything stored since the last write becomes one chunk. Caller holds mutex.
void write_file_chunk_locked(EmitterState& e, bool final_chunk) {
    AgentState& state = agent();
    if (!state.file_mode || e.file_failed) return;
    int64_t now = monotonic_ticks();
    bool new_events = e.store.end_index() > e.file_written_index;
    if (!new_events && !final_chunk && e.file_started) return;
    e.store.add_statistics(snapshot(now));
    ChunkContent content;
    int64_t from = e.file_started ? e.file_written_ticks + 1 : 0;
    // Events are taken by index only: a request timestamps itself before it is published, so
    // one published after the last cut may carry a time before it.
    e.store.collect({e.file_written_index, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), from},
                    *e.methods, e.threads, &content);
    int64_t first = content.events.empty() ? now : std::min(now, content.events.front().start_ticks);
    fill_chunk_header(e, e.file_started ? std::min(first, e.file_written_ticks + 1) : first, now, &content);
    std::string error;
    if (!write_chunk_to(state.options.file.c_str(), e.file_started ? O_APPEND : (O_CREAT | O_TRUNC), content, &error)) {
        Log::warn("%s; file= recording stopped: later requests need a JFR recording", error.c_str());
        e.file_failed = true;
        state.file_failed.store(true, std::memory_order_release);
        return;
    }
    e.file_started = true;
    e.file_written_index = e.store.end_index();
    e.file_written_ticks = now;
    trim_locked(e);
}

// Appends to path a chunk with the events requested in (after, until] and a statistics event
// taken now (stamped no later than until). Nothing is written when there is neither an event nor
// an enabled event type to account for.
bool append_window_locked(EmitterState& e, int64_t after, int64_t until, const char* path, const TickScale& scale,
                          std::string* error) {
    int64_t now = monotonic_ticks();
    ChunkContent content;
    e.store.add_statistics(snapshot(std::min(now, until)));
    e.store.collect({0, after + 1, until, after + 1}, *e.methods, e.threads, &content);
    if (content.events.empty() && !agent().event_enabled.load(std::memory_order_acquire)) return true;
    int64_t first = content.events.empty() ? until : std::min(until, content.events.front().start_ticks);
    fill_chunk_header(e, first, until, &content);
    content.append_to = scale;
    if (!write_chunk_to(path, O_APPEND, content, error)) return false;
    Log::debug("appended %zu events to %s", content.events.size(), path);
    return true;
}

void periodic_locked(EmitterState& e) {
    AgentState& state = agent();
    int64_t now = monotonic_ticks();
    if (now - e.last_statistics_ticks < state.options.stats_period_ns) return;
    e.last_statistics_ticks = now;
    if (state.file_mode) {
        write_file_chunk_locked(e, false);
    } else if (!ChunkHook::installed() || state.event_enabled.load(std::memory_order_acquire)) {
        e.store.add_statistics(snapshot(now));
    }
    trim_locked(e);
}

// Too many events wait for JFR to finish the current chunk: ask for a new one (at most once a
// second), so that what stackreq holds does not grow with the recording.
bool wants_new_chunk_locked(EmitterState& e) {
    int64_t now = monotonic_ticks();
    if (!ChunkHook::installed() || e.store.size() < agent().options.pending_limit ||
        now - e.last_new_chunk_request < 1000000000) {
        return false;
    }
    e.last_new_chunk_request = now;
    return true;
}

void JNICALL emitter_main(jvmtiEnv*, JNIEnv* jni, void*) {
    EmitterState& e = emitter();
    AgentState& state = agent();
    while (!e.stopping.load()) {
        timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += 10 * 1000000;
        if (deadline.tv_nsec >= 1000000000) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000;
        }
        sem_timedwait(&state.emitter_wakeup, &deadline);
        bool new_chunk;
        {
            std::lock_guard<std::mutex> guard(e.mutex);
            if (e.stopping.load()) break;
            drain_locked(e, jni);
            periodic_locked(e);
            new_chunk = wants_new_chunk_locked(e);
        }
        if (new_chunk) ChunkHook::request_new_chunk(jni);
    }
    e.thread_exited.store(true);
}

JNIEnv* current_jni() {
    JNIEnv* jni = nullptr;
    if (agent().vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK) return nullptr;
    return jni;
}

}  // namespace

ThreadDirectory& Emitter::threads() { return emitter().threads; }

bool Emitter::start(jvmtiEnv* jvmti, JNIEnv* jni) {
    EmitterState& e = emitter();
    e.methods = new MethodResolver(jvmti);
    e.walked_stacks.set_capacity(agent().options.stack_cache);
    e.last_statistics_ticks = monotonic_ticks();
    jclass thread_class = jni->FindClass("java/lang/Thread");
    jmethodID constructor = thread_class == nullptr ? nullptr : jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V");
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
    if (jni == nullptr || e.methods == nullptr) return;
    std::lock_guard<std::mutex> guard(e.mutex);
    drain_all_locked(e, jni);
    write_file_chunk_locked(e, false);
}

void Emitter::set_event_type_id(uint64_t id) {
    std::lock_guard<std::mutex> guard(emitter().mutex);
    emitter().event_type_id = id;
}

void Emitter::chunk_finished(JNIEnv* jni, const char* path) {
    EmitterState& e = emitter();
    if (e.methods == nullptr) return;
    std::lock_guard<std::mutex> guard(e.mutex);
    drain_all_locked(e, jni);
    TickScale scale;
    if (!read_first_chunk_header(path, &scale)) {
        Log::warn("%s: no JFR chunk header; its stackreq events go into the next chunk", path);
        return;
    }
    // Up to now rather than to the JVM chunk's end: events requested while JFR was closing the
    // chunk (milliseconds) are in this one too, and when it is the last chunk nothing is left
    // for a recording that has stopped. The appended chunk's own header covers them.
    int64_t until = monotonic_ticks();
    std::string error;
    if (!append_window_locked(e, e.jfr_written_ticks, until, path, scale, &error)) {
        Log::warn("%s: the stackreq events of this chunk are lost", error.c_str());
    }
    e.jfr_written_ticks = until;
    trim_locked(e);
}

bool Emitter::last_recording_stopped(JNIEnv* jni, const char* destination, std::string* error) {
    EmitterState& e = emitter();
    if (e.methods == nullptr) return true;
    std::lock_guard<std::mutex> guard(e.mutex);
    drain_all_locked(e, jni);
    int64_t now = monotonic_ticks();
    bool ok = true;
    if (destination != nullptr) {
        TickScale scale;
        if (!read_first_chunk_header(destination, &scale)) scale = TickScale{};
        ok = append_window_locked(e, e.jfr_written_ticks, now, destination, scale, error);
    }
    size_t before = e.store.size();
    e.jfr_written_ticks = now;
    trim_locked(e);
    if (destination == nullptr && before > e.store.size()) {
        Log::debug("%zu events requested after the last chunk of the last recording discarded", before - e.store.size());
    }
    return ok;
}

void Emitter::recording_started(int64_t recording_id) {
    std::lock_guard<std::mutex> guard(emitter().mutex);
    emitter().store.recording_started(recording_id, monotonic_ticks());
}

bool Emitter::recording_stopped(JNIEnv* jni, int64_t recording_id, const char* path, std::string* error) {
    EmitterState& e = emitter();
    std::lock_guard<std::mutex> guard(e.mutex);
    int64_t start = e.store.recording_stopped(recording_id);
    // No recording left that enables the event: close the gate before the last drain so that no
    // request is accepted for nobody. Java's refresh reopens it if JFR says otherwise.
    if (e.store.running_recordings() == 0) agent().event_enabled.store(false, std::memory_order_release);
    drain_all_locked(e, jni);
    bool ok = true;
    if (start >= 0 && path != nullptr) {
        int64_t now = monotonic_ticks();
        e.store.add_statistics(snapshot(now));
        ChunkContent content;
        e.store.collect({0, start, now, start}, *e.methods, e.threads, &content);
        fill_chunk_header(e, start, now, &content);
        if (!read_first_chunk_header(path, &content.append_to)) {
            Log::debug("%s: no JFR chunk header to align times with", path);
        }
        ok = write_chunk_to(path, O_APPEND, content, error);
        if (ok) Log::info("appended %zu events to %s", content.events.size(), path);
    }
    trim_locked(e);
    return ok;
}

void Emitter::shutdown(JNIEnv* jni) {
    EmitterState& e = emitter();
    if (e.methods == nullptr) return;
    e.stopping.store(true);
    sem_post(&agent().emitter_wakeup);
    std::lock_guard<std::mutex> guard(e.mutex);
    drain_all_locked(e, jni);
    write_file_chunk_locked(e, true);
    StatisticsEvent s = snapshot(monotonic_ticks());
    Log::info("requests: requested=%lld accepted=%lld emitted=%lld dropped=%lld failed=%lld throttled=%lld recovered=%lld",
              static_cast<long long>(s.requested), static_cast<long long>(s.accepted),
              static_cast<long long>(s.emitted), static_cast<long long>(s.dropped),
              static_cast<long long>(s.failed), static_cast<long long>(s.throttled),
              static_cast<long long>(s.recovered));
}

}  // namespace stackreq
