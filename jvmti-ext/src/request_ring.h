// A bounded lock-free ring of preallocated request slots (Vyukov's bounded queue).
// Producers are signal handlers on any thread: claim() and publish() never block, never
// allocate; a full ring makes claim() fail so the caller drops and counts. One consumer at a
// time (the emitter's drain holds a mutex) takes slots in order.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "request_event.h"

namespace stackreq {

// Same layout as the JDK's ASGCT_CallFrame (forte.cpp): lineno holds the bci for Java frames
// and a negative marker for native ones. The type lives in the struct's padding, which
// AsyncGetCallTrace never writes; the emitter sets it (slot_resolver.cpp).
struct CallFrame {
    CallFrame() = default;
    CallFrame(jint bci, jmethodID method_id, FrameType frame_type = FrameType::kJava)
        : bci_or_marker(bci), type(frame_type), method(method_id) {}

    jint bci_or_marker;
    FrameType type;
    jmethodID method;
};
static_assert(sizeof(CallFrame) == 16 && offsetof(CallFrame, method) == 8, "AsyncGetCallTrace's frame layout");

// walker=vmstructs: the markers of the frames stackreq's own walk records (PhysicalWalk::walk_java),
// which the emitter turns into Java frames (java_frames.h).
constexpr jint kInterpretedFrame = -1000;
constexpr jint kCompiledFrame = -1001;

// walker=vmstructs: which bytecode pointer the top interpreted frame of an own walk is at.
enum class TopInterpreted : uint8_t {
    kRegister = 0,        // the interpreter's register (top_bcp), which must lie in the frame's method
    kRegisterOrSaved = 1,  // that register, or when it is not in the method (the interpreter returning
                           // into the frame, or jumping to a callee) the frame's saved one
    kEntering = 2,        // frames[0] is a method the interpreter is entering, its frame not built: bci 0
};

enum class RequestKind : uint8_t {
    kWalked = 0,      // frames captured by AsyncGetCallTrace at the request, from the signal's ucontext
    kBiasedSelf = 1,  // ucontext == NULL: frames captured the same way, from the request's own registers
    kBiasedOther = 2,  // thread given: emitter takes the stack of `thread_ref`
    kInternal = 3      // native=on, a thread JVMTI does not show (internal_threads.h): native frames only
};

struct RequestSlot {
    std::atomic<uint64_t> sequence;
    StackTraceRequestEvent event;  // the request sets start_ticks and user_data, the emitter the rest
    jobject thread_ref;   // global reference for kBiasedOther, else null
    int32_t tid;          // kWalked, kBiasedSelf: the registered thread's; kInternal: gettid's
    int32_t frame_count;  // > 0 frames; <= 0 the AsyncGetCallTrace error
    RequestKind kind;
    bool truncated;
    uintptr_t top_pc;     // PC of the code the walk's top physical frame is in (StackWalker::walk)
    int32_t physical_count;   // physical frames walked (physical_walk.h)
    bool physical_from_anchor;  // they start at the thread's last Java frame, not at top_pc
    uintptr_t* physical_pcs;  // max_depth entries after frames: their PCs, top first
    // walker=vmstructs: frames[0, physical_count) are the own walk's markers, physical_pcs their
    // bytecode pointers or PCs (PhysicalWalk::walk_java); top_bcp the interpreter's bytecode
    // pointer register at the signal (0: none) and top_interpreted how the top interpreted frame
    // uses it, top_unbuilt that the top compiled frame is in its
    // prologue or epilogue, its frame not there; own_outcome the OwnWalkOutcome of the request
    // (own_walk.h) and own_stop_pc the PC of the frame a walk cut short stopped at (of native
    // code at the signal, for a walk left without a last Java frame), for the emitter's per-request log;
    // own_sized_frames the physical frames a walk cut short had walked above that frame.
    bool own_walk;
    uint8_t own_outcome;
    uintptr_t own_stop_pc;
    int32_t own_sized_frames;
    bool top_unbuilt;
    TopInterpreted top_interpreted;
    uintptr_t top_bcp;
    // native=on: the native PCs above the Java frames, signal PC first (native_unwind.h); they
    // live after the physical PCs, in the slot's own memory.
    uint32_t native_count;
    uintptr_t* native_pcs;
    CallFrame frames[1];  // really max_depth frames
};

class RequestRing {
public:
    // Normal context. slots is rounded to a power of two by the caller; each slot has room for
    // max_depth frames, max_depth physical PCs and native_depth native PCs. Returns false on OOM.
    bool init(uint32_t slots, uint32_t max_depth, uint32_t native_depth = 0);
    void destroy();
    // Normal context, before requests come (the first EnableRequestStackTrace): commits the slots'
    // memory (MADV_POPULATE_WRITE, Linux 5.14+, which leaves the contents alone; elsewhere a page
    // is committed at its first write), so that a request never takes a page fault in its slot:
    // until the ring has gone round once, every request wrote to pages never touched, 1-2 us of
    // faults a request. Only the first call tries; false when it did and the kernel could not.
    bool commit_memory_once();

    // Async-signal-safe. Returns nullptr when full.
    RequestSlot* claim();
    // Async-signal-safe. True for one slot in every quarter of the ring's capacity (in the order
    // of claims): the caller wakes the consumer then, so that a consumer that sleeps long when
    // few requests come still drains the ring before it fills, at one wake-up per quarter. Never
    // for a ring under four slots (a test's, ring=2, that is meant to overflow).
    bool publish(RequestSlot* slot);

    // Consumer side: the next published slot in order, or nullptr when none is ready
    // (empty, or the next one is claimed but not yet published).
    RequestSlot* peek();
    void release(RequestSlot* slot);
    // True when some slot was claimed and not yet taken by the consumer.
    bool has_unconsumed() const;

    uint32_t max_depth() const { return max_depth_; }
    uint32_t native_depth() const { return native_depth_; }
    uint32_t capacity() const { return mask_ + 1; }

private:
    RequestSlot* at(uint64_t position) const {
        return reinterpret_cast<RequestSlot*>(memory_ + (position & mask_) * stride_);
    }

    char* memory_ = nullptr;
    size_t bytes_ = 0;
    size_t stride_ = 0;
    uint32_t mask_ = 0;
    uint64_t wake_mask_ = 0;  // publish() asks for a wake-up when (position + 1) & wake_mask_ is 0
    uint32_t max_depth_ = 0;
    uint32_t native_depth_ = 0;
    bool commit_tried_ = false;
    alignas(64) std::atomic<uint64_t> enqueue_position_{0};
    alignas(64) uint64_t dequeue_position_ = 0;
};

}  // namespace stackreq
