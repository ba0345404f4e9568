#include "stub_code.h"

#include <cstring>

namespace stackreq {

StubCode::Range StubCode::ranges_[StubCode::kCapacity];
std::atomic<uint32_t> StubCode::claimed_{0};
std::atomic<uint32_t> StubCode::published_{0};
std::atomic<uintptr_t> StubCode::lowest_{UINTPTR_MAX};
std::atomic<uintptr_t> StubCode::highest_{0};

namespace {
// Leaf stubs of StubRoutines: called from compiled code, they call nothing and keep their caller
// one frame up (arraycopy, fill, checksums, crypto, math intrinsics). Not the interpreter, the
// i2c/c2i adapters, exception/deopt/safepoint blobs or runtime stubs that call into the VM
// (names with "Runtime", "_Java" or "blob"): a walk failing there is a frame in transition, and
// unwinding one frame from it gave stacks without their top Java frames.
constexpr const char* kLeafStubParts[] = {
    "arraycopy", "_fill", "vectorizedMismatch", "updateBytes", "aescrypt", "AESCrypt", "ghash_processBlocks",
    "sha1_", "sha256_", "sha512_", "md5_", "base64_", "chacha20", "mulAdd", "multiplyToLen", "squareToLen",
    "libm", "dexp", "dlog", "dpow", "dsin", "dcos", "dtan", "dcbrt", "fmod", "unsafe_setmemory", "jni_fast_Get",
};
constexpr const char* kNonLeafParts[] = {"Runtime", "_Java", "blob", "Blob"};

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
    if (!is_leaf_stub(name) || length == 0) return true;
    uint32_t index = claimed_.fetch_add(1, std::memory_order_relaxed);
    if (index >= kCapacity) return false;
    ranges_[index] = Range{start, start + length};
    uintptr_t bound = lowest_.load(std::memory_order_relaxed);
    while (start < bound && !lowest_.compare_exchange_weak(bound, start, std::memory_order_relaxed)) {
    }
    bound = highest_.load(std::memory_order_relaxed);
    while (start + length > bound &&
           !highest_.compare_exchange_weak(bound, start + length, std::memory_order_relaxed)) {
    }
    // Publish in claim order so readers never see a half-written range.
    uint32_t expected = index;
    while (!published_.compare_exchange_weak(expected, index + 1, std::memory_order_release,
                                             std::memory_order_relaxed)) {
        expected = index;
    }
    return true;
}

bool StubCode::contains(uintptr_t pc) {
    uint32_t count = published_.load(std::memory_order_acquire);
    // Most PCs are in compiled methods, outside the stubs' span: no range is read for them (the
    // scan touches every range's cache line, cold in a signal handler).
    if (pc < lowest_.load(std::memory_order_relaxed) || pc >= highest_.load(std::memory_order_relaxed)) return false;
    for (uint32_t i = 0; i < count; i++) {
        if (pc >= ranges_[i].start && pc < ranges_[i].end) return true;
    }
    return false;
}

uint32_t StubCode::size() { return published_.load(std::memory_order_acquire); }

void StubCode::reset_for_test() {
    claimed_.store(0);
    published_.store(0);
    lowest_.store(UINTPTR_MAX);
    highest_.store(0);
}

}  // namespace stackreq
