#include "hotspot/stub_code.h"

#include <algorithm>
#include <cstring>

namespace stackreq {

StubCode::Range StubCode::ranges_[StubCode::kCapacity];
std::atomic<uint32_t> StubCode::claimed_{0};
std::atomic<uint32_t> StubCode::published_{0};
StubCode::Range StubCode::dispatch_ranges_[StubCode::kDispatchCapacity];
std::atomic<uint32_t> StubCode::dispatch_claimed_{0};
std::atomic<uint32_t> StubCode::dispatch_published_{0};
std::atomic<uintptr_t> StubCode::dispatch_lowest_{UINTPTR_MAX};
std::atomic<uintptr_t> StubCode::dispatch_highest_{0};
StubCode::KindRange StubCode::frameless_ranges_[StubCode::kFramelessCapacity];
std::atomic<uint32_t> StubCode::frameless_claimed_{0};
std::atomic<uint32_t> StubCode::frameless_published_{0};
std::atomic<uintptr_t> StubCode::frameless_lowest_{UINTPTR_MAX};
std::atomic<uintptr_t> StubCode::frameless_highest_{0};
std::atomic<uintptr_t> StubCode::lowest_{UINTPTR_MAX};
std::atomic<uintptr_t> StubCode::highest_{0};

namespace {
// Leaf stubs of StubRoutines and G1: called from compiled code, they call nothing (or only C code,
// as leaves) and keep their caller one frame up (arraycopy, fill, checksums, crypto, math
// intrinsics, barrier slow paths). Not the interpreter, the
// i2c/c2i adapters, exception/deopt/safepoint blobs or runtime stubs that call into the VM
// (names with "Runtime", "_Java" or "blob"): a walk failing there is a frame in transition, and
// unwinding one frame from it gave stacks without their top Java frames.
constexpr const char* kLeafStubParts[] = {
    "arraycopy", "_fill", "vectorizedMismatch", "updateBytes", "aescrypt", "AESCrypt", "ghash_processBlocks",
    "sha1_", "sha256_", "sha512_", "md5_", "base64_", "chacha20", "mulAdd", "multiplyToLen", "squareToLen",
    "libm", "dexp", "dlog", "dpow", "dsin", "dcos", "dtan", "dcbrt", "fmod", "unsafe_setmemory", "jni_fast_Get",
    // aarch64's vectorized hash code (String.hashCode and Arrays.hashCode from JDK 21 on): called
    // by C2 code with bl, enter() ... leave(); x86_64 has no stub of that name (its intrinsic is
    // inline in the compiled method).
    "large_arrays_hashcode",
    // aarch64's primitive arraycopy copy loops (JDK 17 forward_copy_longs and backward_copy_longs,
    // JDK 25 copy_byte_f and copy_byte_b): called with bl by the arraycopy stubs, not by compiled
    // code; their walks go on through that stub (top_frame_aarch64.cpp). Not the oop ones (JDK 25
    // copy_oop_*): their arraycopy stubs push registers below their record before the call, and
    // are not placed. x86_64 has no stub of these names (its copy loops are inline).
    "copy_longs", "copy_byte_",
    // G1's barrier slow paths for C1 code: `push rbp; mov rbp, rsp`, the argument in the caller's frame.
    "g1_pre_barrier_slow", "g1_post_barrier_slow",
};
constexpr const char* kNonLeafParts[] = {"Runtime", "_Java", "blob", "Blob"};

// The VM code an exception passes through between compiled frames (HotSpot 17 and 25 names):
// C2's "_rethrow_Java" and "ExceptionBlob", the shared "forward_exception" and
// "catch_exception", C1's "handle_exception*" and "unwind_exception" Runtime1 stubs.
bool is_exception_dispatch(const char* name) {
    return name != nullptr && (std::strstr(name, "rethrow") != nullptr || std::strstr(name, "xception") != nullptr);
}

// HotSpot 17 and 25 names (JVMTI reports "vtable stub", the oracle's records "vtable_stub").
StubCode::Frameless frameless_kind(const char* name) {
    if (name == nullptr) return StubCode::Frameless::kNone;
    const bool dispatch_stub = (std::strncmp(name, "vtable", 6) == 0 || std::strncmp(name, "itable", 6) == 0) &&
                               std::strstr(name, "stub") != nullptr;
    if (dispatch_stub || std::strcmp(name, "InlineCacheBuffer") == 0) return StubCode::Frameless::kReturnAddressOnTop;
    // The method handle intrinsics' interpreter entries ("_invokeBasic", "_linkToStatic", ...) are
    // jumped to as the adapters are.
    const bool adapter = std::strncmp(name, "I2C/C2I", 7) == 0 || std::strcmp(name, "_invokeBasic") == 0 ||
                         std::strncmp(name, "_linkTo", 7) == 0;
    return adapter ? StubCode::Frameless::kAdapters : StubCode::Frameless::kNone;
}

// Appends value to ranges (capacity entries), published in claim order.
template <typename R>
bool append_range(R* ranges, uint32_t capacity, std::atomic<uint32_t>& claimed, std::atomic<uint32_t>& published,
                  const R& value) {
    uint32_t index = claimed.fetch_add(1, std::memory_order_relaxed);
    if (index >= capacity) return false;
    ranges[index] = value;
    uint32_t expected = index;
    while (!published.compare_exchange_weak(expected, index + 1, std::memory_order_release,
                                            std::memory_order_relaxed)) {
        expected = index;
    }
    return true;
}

// Widens [lowest, highest) to hold [start, end).
void extend_span(std::atomic<uintptr_t>& lowest, std::atomic<uintptr_t>& highest, uintptr_t start, uintptr_t end) {
    uintptr_t bound = lowest.load(std::memory_order_relaxed);
    while (start < bound && !lowest.compare_exchange_weak(bound, start, std::memory_order_relaxed)) {
    }
    bound = highest.load(std::memory_order_relaxed);
    while (end > bound && !highest.compare_exchange_weak(bound, end, std::memory_order_relaxed)) {
    }
}

bool is_leaf_stub(const char* name) {
    if (name == nullptr) return false;
    for (const char* part : kNonLeafParts) {
        if (std::strstr(name, part) != nullptr) return false;
    }
    for (const char* part : kLeafStubParts) {
        if (std::strstr(name, part) != nullptr) return true;
    }
    return false;
}
}  // namespace

bool StubCode::add(const char* name, uintptr_t start, uintptr_t length) {
    if (is_exception_dispatch(name) && length != 0) {
        extend_span(dispatch_lowest_, dispatch_highest_, start, start + length);
        append_range(dispatch_ranges_, kDispatchCapacity, dispatch_claimed_, dispatch_published_,
                     Range{start, start + length});
    }
    if (const Frameless kind = frameless_kind(name); kind != Frameless::kNone && length != 0) {
        extend_span(frameless_lowest_, frameless_highest_, start, start + length);
        append_range(frameless_ranges_, kFramelessCapacity, frameless_claimed_, frameless_published_,
                     KindRange{start, start + length, kind});
    }
    if (!is_leaf_stub(name) || length == 0) return true;
    if (claimed_.load(std::memory_order_relaxed) >= kCapacity) return false;
    // The span first: a range is published inside it.
    extend_span(lowest_, highest_, start, start + length);
    return append_range(ranges_, kCapacity, claimed_, published_, Range{start, start + length});
}

bool StubCode::range_of(uintptr_t pc, Range* range) {
    const uint32_t count = published_.load(std::memory_order_acquire);
    // Most PCs are in compiled methods, outside the stubs' span: no range is read for them (the
    // scan touches every range's cache line, cold in a signal handler).
    if (pc < lowest_.load(std::memory_order_relaxed) || pc >= highest_.load(std::memory_order_relaxed)) return false;
    for (uint32_t i = 0; i < count; i++) {
        if (pc >= ranges_[i].start && pc < ranges_[i].end) {
            *range = ranges_[i];
            return true;
        }
    }
    return false;
}

bool StubCode::contains(uintptr_t pc) {
    Range range;
    return range_of(pc, &range);
}

bool StubCode::in_exception_dispatch(uintptr_t pc) {
    const uint32_t count = std::min(dispatch_published_.load(std::memory_order_acquire), kDispatchCapacity);
    if (pc < dispatch_lowest_.load(std::memory_order_relaxed) ||
        pc >= dispatch_highest_.load(std::memory_order_relaxed)) {
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (pc >= dispatch_ranges_[i].start && pc < dispatch_ranges_[i].end) return true;
    }
    return false;
}

StubCode::Frameless StubCode::frameless_at(uintptr_t pc) {
    const uint32_t count = std::min(frameless_published_.load(std::memory_order_acquire), kFramelessCapacity);
    if (pc < frameless_lowest_.load(std::memory_order_relaxed) ||
        pc >= frameless_highest_.load(std::memory_order_relaxed)) {
        return Frameless::kNone;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (pc >= frameless_ranges_[i].start && pc < frameless_ranges_[i].end) return frameless_ranges_[i].kind;
    }
    return Frameless::kNone;
}

uint32_t StubCode::size() { return published_.load(std::memory_order_acquire); }

void StubCode::reset_for_test() {
    claimed_.store(0);
    published_.store(0);
    dispatch_claimed_.store(0);
    dispatch_published_.store(0);
    dispatch_lowest_.store(UINTPTR_MAX);
    dispatch_highest_.store(0);
    frameless_claimed_.store(0);
    frameless_published_.store(0);
    frameless_lowest_.store(UINTPTR_MAX);
    frameless_highest_.store(0);
    lowest_.store(UINTPTR_MAX);
    highest_.store(0);
}

}  // namespace stackreq
