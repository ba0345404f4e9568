// The emitter: a JVMTI agent thread that drains the request ring, resolves methods and
// threads, deduplicates stacks into the event store, takes statistics, and writes chunks:
// into each JFR chunk file as JFR finishes it (jdk_hooks/chunk_hook.h), or, when that hook is not
// available, into a recording's destination when it stops; file= mode periodically. Every
// public function may be called from any Java thread in a normal context; a mutex serializes
// them.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>

namespace stackreq {

// What the emitter asks of JFR through the hooks of jdk_hooks/, which in turn call the emitter:
// the agent hands them over at load (set_jfr_hooks), so that the emitter includes none of them.
// Until then the emitter acts as when the chunk hook is refused and the settings poll not started.
struct JfrHooks {
    bool (*chunk_hook_installed)();               // ChunkHook::installed
    void (*request_new_chunk)(JNIEnv* jni);       // ChunkHook::request_new_chunk
    void (*poll_settings)(JNIEnv* jni);           // SettingsPoll::poll
};

class Emitter {
public:
    // Agent_OnLoad, before start.
    static void set_jfr_hooks(const JfrHooks& hooks);

    // VMInit: creates the resolver state and starts the agent thread.
    static bool start(jvmtiEnv* jvmti, JNIEnv* jni);

    // Drains everything accepted so far (waiting briefly for requests being captured) and,
    // in file= mode, writes it to the file.
    static void flush_from_any_thread();

    static void set_event_type_id(uint64_t id);

    // JFR's tick counter read at epoch_nanos (ChunkHook, at install): the time scale of the side
    // files of a chunk whose file has no header yet (JDK 11 writes a chunk's file when it
    // finishes it).
    static void set_jfr_tick_scale(int64_t ticks, int64_t epoch_nanos, int64_t ticks_per_second);

    // JFR created the file of the chunk the JVM writes next (ChunkHook; adopted: the chunk of a
    // recording that ran before the hook, taken only when no chunk is known). Until JFR finishes
    // it, the emitter writes the events accepted meanwhile into side files beside it, about twice
    // a second (side_files.h), so that a JVM that dies keeps them in the repository.
    static void chunk_opened(const char* path, bool adopted);
    // JFR has closed the chunk file at path (ChunkHook): appends a chunk with the events requested
    // since the previous cut, up to now, then deletes the side files, which that chunk covers.
    static void chunk_finished(JNIEnv* jni, const char* path);
    // With the chunk hook: the last running recording stopped. The events requested after the
    // last chunk's cut are appended to destination (when not null: the recording's file, written
    // by JFR by now), the rest discarded, since no chunk will take them.
    static bool last_recording_stopped(JNIEnv* jni, const char* destination, std::string* error);

    // Without the chunk hook: a recording that enables the event started or stopped.
    static void recording_started(int64_t recording_id);
    // Appends the chunk of this recording's events to path (when not null). Returns false and
    // sets *error when the file cannot be written.
    static bool recording_stopped(JNIEnv* jni, int64_t recording_id, const char* path, std::string* error);

    // VMDeath: stops the thread, flushes, writes the file= recording's last chunk.
    static void shutdown(JNIEnv* jni);
};

}  // namespace stackreq
