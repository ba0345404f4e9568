// Address ranges of the JVM's leaf stubs (arraycopy, fill, checksum, crypto and math stubs),
// learnt from JVMTI DynamicCodeGenerated events. The stub recovery of the walker runs only for
// a PC inside one of them: a failed walk with the PC in the interpreter, an adapter, a runtime
// stub or elsewhere is not a leaf stub frame, and unwinding "one frame" from there silently
// drops the frames above an older one.
// Ranges are appended in normal context; contains() is lock-free and async-signal-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace stackreq {

class StubCode {
public:
    static constexpr uint32_t kCapacity = 16384;

    // Normal context (DynamicCodeGenerated callbacks, which may run on several threads).
    // Code that is not a leaf stub (the interpreter, adapters, runtime stubs, blobs) is
    // ignored. Returns false when the table is full.
    static bool add(const char* name, uintptr_t start, uintptr_t length);
    // Async-signal-safe.
    static bool contains(uintptr_t pc);
    struct Range;
    // Async-signal-safe: the leaf stub pc is in (its whole code, from its first instruction, for
    // decoding its frame setup on aarch64); false when pc is in none.
    static bool range_of(uintptr_t pc, Range* range);
    // Async-signal-safe: whether pc is in the VM code that dispatches an exception (C2's rethrow
    // stub, the exception blobs, the C1 exception and unwind stubs), where a method's frame has
    // just been popped or is being unwound (added by add() too, up to kDispatchCapacity).
    static bool in_exception_dispatch(uintptr_t pc);
    static constexpr uint32_t kDispatchCapacity = 64;
    // VM code between a caller's call (or the interpreter's jump) and the callee's frame, which
    // pushes nothing the walk cannot account for.
    enum class Frameless : uint8_t {
        kNone = 0,
        kReturnAddressOnTop,  // vtable, itable and inline-cache stubs: no push at all, the caller's
                              // return address stays on top until they jump to the callee
        kAdapters,            // the i2c/c2i adapters, the method handle intrinsics' interpreter entries:
                              // the interpreter's jump to a callee
    };
    // Async-signal-safe: which frameless code pc is in (added by add() too, up to kFramelessCapacity).
    static Frameless frameless_at(uintptr_t pc);
    static constexpr uint32_t kFramelessCapacity = 8192;
    static uint32_t size();
    static void reset_for_test();

    struct Range {
        uintptr_t start;
        uintptr_t end;
    };
    struct KindRange {
        uintptr_t start;
        uintptr_t end;
        Frameless kind;
    };

private:
    static Range ranges_[kCapacity];
    static std::atomic<uint32_t> claimed_;    // slots handed out
    static std::atomic<uint32_t> published_;  // slots fully written, in order
    static Range dispatch_ranges_[kDispatchCapacity];
    static std::atomic<uint32_t> dispatch_claimed_;
    static std::atomic<uint32_t> dispatch_published_;
    static std::atomic<uintptr_t> dispatch_lowest_;
    static std::atomic<uintptr_t> dispatch_highest_;
    static KindRange frameless_ranges_[kFramelessCapacity];
    static std::atomic<uint32_t> frameless_claimed_;
    static std::atomic<uint32_t> frameless_published_;
    static std::atomic<uintptr_t> frameless_lowest_;
    static std::atomic<uintptr_t> frameless_highest_;
    // The span of every range claimed: set before the range is published.
    static std::atomic<uintptr_t> lowest_;
    static std::atomic<uintptr_t> highest_;
};

}  // namespace stackreq
