// A bounded lock-free ring of preallocated request slots. Producers are signal handlers on any
// thread: claim() and publish() never block, never allocate; a ring with every slot claimed makes
// claim() fail so the caller drops and counts. One consumer at a time (the emitter's drain holds a
// mutex) takes slots in the order they were claimed.
//
// The slots' storage is apart from their order: a claim takes the free slot released last (a
// LIFO free list, a Treiber stack of slot indices) and a position in a Vyukov bounded queue of
// indices, which gives the consumer the claim order. While the consumer keeps up, the same few
// slots are written again and again: on a VM that stalls the first write to a page not written
// for a few seconds (docs/performance.md, "What the p99 is made of"), handing slots out in
// sequence order made every request write to such pages.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "request/request_event.h"
#include "request/requesters.h"

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

// walker=vmstructs: the markers of the frames the VMStructs walk records (PhysicalWalk::walk_java),
// which the emitter turns into Java frames (java_frames.h).
constexpr jint kInterpretedFrame = -1000;
constexpr jint kCompiledFrame = -1001;

// walker=vmstructs: which bytecode pointer the top interpreted frame of a VMStructs walk is at.
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
    kInternal = 3,     // native=on, a thread JVMTI does not show (internal_threads.h): native frames only
    // ucontext == NULL where the call's own registers reach no Java frame (a signal handler that
    // interrupted Java code): the emitter takes the calling thread's stack at its next safepoint,
    // as for another thread; the JDK walks such a request at the thread's next safepoint poll.
    kBiasedAtSafepoint = 4
};

// walker=vmstructs: what the VMStructs walk (vmstructs_walk.h) leaves in a slot besides its frames
// (frames[0, physical_count) are the walk's markers, physical_pcs their bytecode pointers or PCs:
// PhysicalWalk::walk_java), for the emitter.
struct VmStructsWalkRecord {
    bool walked;            // the slot's frames are this walk's (else AsyncGetCallTrace's, or none)
    uint8_t outcome;        // the request's VmStructsWalkOutcome
    // The PC of the frame a walk cut short stopped at (of native code at the signal, for a walk
    // left without a last Java frame), for the emitter's per-request log; sized_frames the
    // physical frames such a walk had walked above that frame.
    uintptr_t stop_pc;
    int32_t sized_frames;
    bool top_unbuilt;       // the top compiled frame is in its prologue or epilogue, its frame not there
    TopInterpreted top_interpreted;  // how the top interpreted frame uses top_bcp
    uintptr_t top_bcp;      // the interpreter's bytecode pointer register at the signal (0: none)
};

struct RequestSlot {
    uint64_t position;    // the claim's position in the ring's order (RequestRing::claim)
    uint32_t index;       // which slot this is, fixed at init
    StackTraceRequestEvent event;  // the request sets start_ticks and user_data, the emitter the rest
    jobject thread_ref;   // global reference for kBiasedOther, else null
    Caller caller;        // who requested (requesters.h)
    int32_t tid;          // kWalked, kBiasedSelf: the registered thread's; kInternal: gettid's
    int32_t frame_count;  // > 0 frames; <= 0 the AsyncGetCallTrace error
    RequestKind kind;
    bool truncated;
    uintptr_t top_pc;     // PC of the code the walk's top physical frame is in (AsgctWalk::walk)
    int32_t physical_count;   // physical frames walked (physical_walk.h)
    bool physical_from_anchor;  // they start at the thread's last Java frame, not at top_pc
    uintptr_t* physical_pcs;  // max_depth entries after frames: their PCs, top first
    VmStructsWalkRecord vmstructs;  // walker=vmstructs only
    // native=on: the native PCs above the Java frames, signal PC first (native_unwind.h); they
    // live after the physical PCs, in the slot's own memory.
    uint32_t native_count;
    uintptr_t* native_pcs;
    CallFrame frames[1];  // really max_depth frames
};

class RequestRing {
public:
    // Normal context. slots is rounded to a power of two by the caller (at most 2^24); each slot
    // has room for max_depth frames, max_depth physical PCs and native_depth native PCs. Returns
    // false on OOM.
    bool init(uint32_t slots, uint32_t max_depth, uint32_t native_depth = 0);
    void destroy();
    // Normal context, before requests come (commit_ring_memory): commits the ring's
    // memory (MADV_POPULATE_WRITE, Linux 5.14+, which leaves the contents alone; elsewhere a page
    // is committed at its first write), so that a request never takes a page fault in its slot
    // (1-2 us of faults for a slot's first use: the first burst of requests reaches slots the free
    // list never handed out before). Only the first call tries; false when it did and the kernel
    // could not.
    bool commit_memory_once();

    // Async-signal-safe. The free slot released last, or nullptr when every slot is claimed and
    // not yet released. Every slot claimed must be published: the consumer waits for it.
    RequestSlot* claim();
    // Async-signal-safe. True for one slot in every quarter of the ring's capacity (in the order
    // of claims): the caller wakes the consumer then, so that a consumer that sleeps long when
    // few requests come still drains the ring before it fills, at one wake-up per quarter. Never
    // for a ring under four slots (a test's, ring=2, that is meant to overflow).
    bool publish(RequestSlot* slot);

    // Consumer side: the next published slot in claim order, or nullptr when none is ready
    // (empty, or the next one is claimed but not yet published).
    RequestSlot* peek();
    // The slot peek() returned; it becomes the next one claim() hands out.
    void release(RequestSlot* slot);
    // True when some slot was claimed and not yet taken by the consumer.
    bool has_unconsumed() const;

    uint32_t max_depth() const { return max_depth_; }
    uint32_t native_depth() const { return native_depth_; }
    uint32_t capacity() const { return mask_ + 1; }

private:
    static constexpr uint32_t kNoSlot = ~uint32_t{0};

    // A position of the order queue. sequence holds the low 32 bits of a position (compared by
    // their difference, so it may wrap): == position, free for that position's claim; ==
    // position + 1, published for the consumer; the consumer's release sets position + capacity.
    struct Cell {
        std::atomic<uint32_t> sequence;
        uint32_t index;  // the slot published at this position
    };
    static_assert(sizeof(Cell) == 8, "cells pack 512 to a page");

    RequestSlot* slot_at(uint32_t index) const {
        return reinterpret_cast<RequestSlot*>(slots_ + size_t{index} * stride_);
    }
    // interrupted() runs between reading the top and exchanging it: a no-op for requests, a
    // handler's own claims for the unit test (RequestRingTestAccess).
    template <typename Interruption>
    uint32_t pop_free(Interruption interrupted);
    void push_free(uint32_t index);
    // The claim's second half: a position in the order for the popped slot index.
    RequestSlot* take_position(uint32_t index);
    friend struct RequestRingTestAccess;

    char* memory_ = nullptr;  // one mapping: cells_, next_free_, then the slots
    size_t bytes_ = 0;
    Cell* cells_ = nullptr;
    std::atomic<uint32_t>* next_free_ = nullptr;  // the free list's links, by slot index
    char* slots_ = nullptr;
    size_t stride_ = 0;
    uint32_t mask_ = 0;
    uint64_t wake_mask_ = 0;  // publish() asks for a wake-up when (position + 1) & wake_mask_ is 0
    uint32_t max_depth_ = 0;
    uint32_t native_depth_ = 0;
    std::atomic<bool> commit_tried_{false};
    // The free list's top: slot index (kNoSlot: empty) in the low 32 bits, a tag every change
    // increments in the high 32, so that a pop that read a top which was popped and pushed again
    // meanwhile (by a handler that interrupted it, or another thread) fails its compare-exchange.
    alignas(64) std::atomic<uint64_t> free_top_{0};
    alignas(64) std::atomic<uint64_t> enqueue_position_{0};
    alignas(64) uint64_t dequeue_position_ = 0;
};

// A handler that interrupts this loop anywhere and pops or pushes on its own changes the top's
// tag, so the interrupted compare-exchange fails and the loop starts over from the new top.
template <typename Interruption>
uint32_t RequestRing::pop_free(Interruption interrupted) {
    uint64_t top = free_top_.load(std::memory_order_acquire);
    for (;;) {
        const uint32_t index = static_cast<uint32_t>(top);
        if (index == kNoSlot) return kNoSlot;
        // Stale when the slot was popped meanwhile; the tag then makes the exchange fail.
        const uint64_t next = next_free_[index].load(std::memory_order_relaxed);
        const uint64_t tag = (top >> 32) + 1;
        interrupted();
        if (free_top_.compare_exchange_weak(top, (tag << 32) | next, std::memory_order_acquire,
                                            std::memory_order_acquire)) {
            return index;
        }
    }
}

}  // namespace stackreq
