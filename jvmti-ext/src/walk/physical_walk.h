// The physical frames of a stack walk: the code address each Java frame of the machine stack is
// at, from the top frame AsyncGetCallTrace walked down, recorded in the signal handler beside
// AsyncGetCallTrace's (method, bci) frames so that the emitter can type every frame, not only the
// top ones (frame_typer.h). HotSpot's frames (x86_64 and aarch64): an interpreted frame is found
// from its frame pointer (the caller's frame pointer at fp, its return address at fp + 8, the
// sender's stack pointer saved at fp - 8, the slots of native_unwind/arch.h); a compiled frame (a JIT-compiled method or a native method's wrapper)
// has a fixed size, its code blob's frame size (code_heaps.h): the caller's stack pointer is the
// frame's unextended stack pointer plus that size, the return address and the saved frame pointer
// the two words below it. The walk stops at the first frame that is neither (a stub, the thread's
// first entry frame) or that would leave the thread's stack; an entry frame with Java frames below
// it (a call from native code or from the VM into Java) is passed over to them, as
// AsyncGetCallTrace does. When the thread is not in Java code (in the VM, in native code, or the
// request's own stack with ucontext NULL), AsyncGetCallTrace starts at the thread's last Java
// frame, which the JVM keeps in the JavaThread's frame anchor: so does the physical walk.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "native_unwind/arch.h"
#include "request/request_ring.h"
#include "request/thread_registry.h"

namespace stackreq {

class PhysicalWalk {
public:
    // Normal context, at VMInit or the attach, on a Java thread (jni and current are its own):
    // learns where a JavaThread keeps its JNIEnv and its last Java frame (gHotSpotVMStructs).
    // Returns false and sets *error when this JVM does not say; walks then start at the
    // signal's registers only.
    static bool init(JNIEnv* jni, jthread current, std::string* error);
    // Normal context (DynamicCodeGenerated): the interpreter's code range.
    static void on_generated(const char* name, uintptr_t start, uintptr_t size);
    // Async-signal-safe.
    static bool in_interpreter(uintptr_t pc);
    // Async-signal-safe: whether pc is the return address of the JVM's call stub (an entry frame).
    static bool is_call_stub_return(uintptr_t pc);
    // Async-signal-safe. Walks the calling thread's physical frames from top, the registers
    // AsyncGetCallTrace walked its top Java frame from, when top.pc is in Java code: pcs receives
    // top.pc, then each caller's return address (at most max in all); returns how many, and
    // *from_anchor = false. Otherwise it walks from the thread's last Java frame: pcs[0] is then
    // that frame's PC, and *from_anchor = true. Reads only the thread's stack [stack_low,
    // stack_high), the code heaps (code_heaps.h) and the frame anchor of the calling thread's own
    // JavaThread, found from its JNIEnv.
    static int32_t walk(const ThreadSlotView& thread, const Registers& top, uintptr_t* pcs, int32_t max,
                        bool* from_anchor);
    // Async-signal-safe, for the calling thread when it is not in Java code: its frame anchor holds
    // no last Java frame, i.e. it has no Java frame at all (a native thread attached to the VM).
    // False when the anchor's place is not known.
    static bool without_java_frames(const ThreadSlotView& thread);
    // Async-signal-safe. walker=vmstructs: the same walk from start (the registers of a Java
    // frame, or of the thread's last Java frame when from_anchor), recording each frame for the
    // emitter to build the stack from (java_frames.h): an interpreted frame as kInterpretedFrame
    // with its Method* in frames[i].method and its bytecode pointer (the frame's saved one) in
    // values[i]; any other (compiled) frame as kCompiledFrame with its PC in values[i] and, in
    // frames[i].method, the Method* its code blob names (CodeHeaps::frame_words_and_method_at).
    // Returns the
    // frame count; *complete says whether the walk reached the thread's first entry frame (a stack
    // without it was cut short by a frame the walk cannot size, or by max); *stopped_at receives
    // the PC of the frame the walk stopped at.
    static int32_t walk_java(const ThreadSlotView& thread, const Registers& start, CallFrame* frames,
                             uintptr_t* values, int32_t max, bool* complete, uintptr_t* stopped_at);
    // Async-signal-safe: the registers of the calling thread's last Java frame (its frame anchor).
    static bool last_java_frame(const ThreadSlotView& thread, Registers* out);
    // Async-signal-safe, for the calling thread: its JavaThread's state is "in native code" (not a
    // transition). Java code enters native code only through a native method's wrapper, which
    // records the last Java frame in the frame anchor first, and a JNI call back into Java puts
    // it back before the thread is in native code again; so with the anchor empty the thread has
    // no Java frame at all (stackreq's emitter and other JVMTI agent threads, a native thread
    // attached to the VM). Not said of "in the VM": on the way back from a call into Java the VM
    // is in that state a moment before it restores the anchor. False when this JVM does not say
    // where the state is.
    static bool in_native_code(const ThreadSlotView& thread);
    // Async-signal-safe, for a signal's PC in VM code of the code heaps that has a frame of its own
    // (a runtime stub, an exception, safepoint or deoptimization blob): last_java_frame, except
    // that an anchor without a PC gets blob_pc. Such code sets the anchor's SP before it calls
    // into the VM and clears it after; until the call is made the word below that SP is not the
    // call's return address but whatever an earlier, deeper call left there.
    static bool last_java_frame_in_blob(const ThreadSlotView& thread, uintptr_t blob_pc, Registers* out);
    // The Method* slot and the bytecode pointer slot of an interpreted frame, in words from its fp.
    static constexpr intptr_t kMethodSlot = kInterpreterMethodSlot, kBcpSlot = kInterpreterBcpSlot;
    static void reset_for_test();

private:
    // own, when not null, receives the frames of walk_java (values in pcs).
    static int32_t walk_from(const ThreadSlotView& thread, const Registers& top, uintptr_t* pcs, int32_t max,
                             CallFrame* own = nullptr, bool* complete = nullptr, uintptr_t* stopped_at = nullptr);
    // The registers of the last Java frame a frame anchor (a JavaFrameAnchor at anchor) holds;
    // without a PC in it, unset_pc, else (0) the return address below its SP.
    static bool anchored_frame(const ThreadSlotView& thread, uintptr_t anchor, Registers* out,
                               uintptr_t unset_pc = 0);
    // The last Java frame below the entry frame whose frame pointer is fp. *none is set when the
    // entry frame's anchor says there is none (the thread's first entry frame).
    static bool below_entry_frame(const ThreadSlotView& thread, uintptr_t fp, Registers* out, bool* none);

    static std::atomic<uintptr_t> interpreter_start_;
    static std::atomic<uintptr_t> interpreter_end_;
};

}  // namespace stackreq
