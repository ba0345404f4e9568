// Turns a captured request (a ring slot) into an event: finds its thread, resolves the walked
// frames' methods (through the walked-stack cache), takes biased stacks with JVMTI GetStackTrace
// at the thread's next safepoint, and interns the stack in the event store. Used by whoever
// holds the emitter's lock; normal context only.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "chunk_writer/jfr_chunk.h"
#include "emitter/event_store.h"
#include "emitter/method_resolver.h"
#include "emitter/native_symbols.h"
#include "emitter/walked_stack_cache.h"
#include "request/request_ring.h"

namespace stackreq {

class SlotResolver {
public:
    SlotResolver(jvmtiEnv* jvmti, uint32_t max_depth, uint32_t stack_cache);

    // The event of slot, failed when no stack could be taken; its stack is interned in store.
    // Releases the slot's global thread reference.
    StackTraceRequestEvent resolve(JNIEnv* jni, RequestSlot& slot, EventStore& store);
    // Whether slot can be resolved now (at monotonic_ticks() now): a VMStructs walk (vmstructs_walk.h) waits
    // for the JVM to report the code its compiled frames ran (CompiledMethodLoad comes from the
    // JVM's service thread, after the code ran), up to kMaxDescriptionWaitNanos.
    static bool ready(const RequestSlot& slot, int64_t now);
    static constexpr int64_t kMaxDescriptionWaitNanos = 200 * 1000 * 1000;
    const MethodResolver& methods() const { return methods_; }
    // After the store forgot stacks (EventStore::trim): ids remembered for walked stacks may name
    // nothing any more.
    void forget_stacks() { walked_stacks_.clear(); }

private:
    // Sets each walked frame's type: Native from AsyncGetCallTrace's marker, the frames of the
    // top physical frame from the code at the walk's PC (compiled_methods.h), kJava otherwise.
    static void type_walked_frames(RequestSlot& slot);
    void append_walked_frames(const RequestSlot& slot);
    // native=on: the slot's native PCs as Native frames, named by native_symbols_.
    void append_native_frames(const RequestSlot& slot);
    // A virtual thread's walk continues into its carrier's frames: they go; when frames frozen in
    // the continuation are missing above its entry, the stack ends with the walked ones and is
    // marked truncated (virtual_threads.h). A walk through a
    // virtual thread's entry that no mounted virtual thread claims was taken while one mounted
    // or unmounted, whose thread is unknown: it yields no frames (the event fails).
    static void end_at_virtual_thread_entry(RequestSlot& slot, bool mounted);
    bool append_frames_at_safepoint(jobject thread, bool* truncated);
    // walker=vmstructs, a walked request's whole (not truncated) stack: a VMStructs walk's bottom frame
    // is remembered for its thread; a stack AsyncGetCallTrace walked for a request the VMStructs walk
    // left to it must end with the bottom frame the thread's last whole VMStructs walk ended with (a
    // thread's first Java frame does not change, a virtual thread's stack ends at its entry),
    // else false: AsyncGetCallTrace ends its walk silently at a sender it cannot walk and returns
    // the frames so far as a whole stack (the oracle found a one-frame stack of a method deep in
    // a class loader's call). True when the thread has no whole VMStructs walk yet. A thread that calls
    // into Java from native code more than once (a native thread attached to the VM) may have
    // such stacks fail: a failed event, never a wrong one.
    bool ends_where_the_thread_does(const RequestSlot& slot, uint64_t thread_key);
    // walker=vmstructs, log=debug: names the walk of a request that was not a VMStructs walk's success.
    void log_walk(const RequestSlot& slot, bool captured, const char* vmstructs_failure);

    jvmtiEnv* jvmti_;
    uint32_t max_depth_;
    MethodResolver methods_;
    WalkedStackCache walked_stacks_;
    NativeSymbols native_symbols_;
    std::unordered_map<uintptr_t, uint64_t> native_method_ids_;  // looked-up PC -> MethodEntry id
    std::vector<jvmtiFrameInfo> frame_buffer_;
    std::vector<StackFrameEntry> frames_;
    std::vector<CallFrame> vmstructs_frames_;  // scratch for build_java_frames
    // Thread key -> the bottom frame's method of its last whole VMStructs walk; forgotten all at once
    // when it holds kMaxThreadsRemembered threads (the ended ones are never removed one by one).
    std::unordered_map<uint64_t, jmethodID> bottom_methods_;
    static constexpr size_t kMaxThreadsRemembered = 4096;
};

}  // namespace stackreq
