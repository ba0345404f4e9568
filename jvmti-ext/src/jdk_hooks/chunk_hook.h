// Continuous recordings: stackreq's events go into JFR's own chunk files, in the time window
// each chunk covers, so every dump, copy, stop, rotation and maxage/maxsize purge treats them as
// it treats the JVM's events.
//
// How: JFR writes a disk recording as one file per chunk in its repository, and calls
// jdk.jfr.internal.RepositoryChunk.finish(Instant) once the JVM has closed a chunk file, before
// it records the file's size (which bounds every later copy of the chunk). install() rewrites
// that method (class_rewriter.h: RetransformClasses, the bytecode changed by the Java side with ASM) to call
// io.stackreq.jfr.boot.ChunkFinishHook.finishing(path) first; that native, registered here, lets
// the emitter append a stackreq chunk of the window's events to the file (Emitter::chunk_finished).
// Its constructors end by calling ChunkFinishHook.opened(path): the chunk file the JVM writes next,
// beside which the emitter keeps side files until JFR finishes it (side_files.h).
// Everything relied on is checked by install(), which fails with one line naming what is missing.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <string>

namespace stackreq {

class ChunkHook {
public:
    // Called from Java when JFR initializes (recorder: the jdk.jfr.FlightRecorder). Defines the
    // boot hook class from hook_class_bytes, rewrites RepositoryChunk and resolves what
    // request_new_chunk needs. Returns false and sets *error when any of it is missing.
    static bool install(JNIEnv* jni, jbyteArray hook_class_bytes, jobject recorder, std::string* error);
    static bool installed();

    // Asks JFR to finish the current chunk (what a dump does) when a disk recording runs, so that
    // pending events reach the repository. Call with no emitter lock held: JFR calls back into the
    // emitter from the same thread.
    static void request_new_chunk(JNIEnv* jni);
};

}  // namespace stackreq
