#include "stub_code.h"

#include <cstring>

namespace stackreq {

StubCode::Range StubCode::ranges_[StubCode::kCapacity];
std::atomic<uint32_t> StubCode::claimed_{0};
std::atomic<uint32_t> StubCode::published_{0};

namespace {
// The template interpreter and the i2c/c2i adapters are code blobs too, but a walk that fails
// there is a Java frame in transition, not a leaf stub with its caller one frame up.
bool is_stub(const char* name) {
    if (name == nullptr) return false;
    return std::strcmp(name, "Interpreter") != 0 && std::strstr(name, "adapter") == nullptr;
}
}  // namespace

bool StubCode::add(const char* name, uintptr_t start, uintptr_t length) {
    if (!is_stub(name) || length == 0) return true;
    uint32_t index = claimed_.fetch_add(1, std::memory_order_relaxed);
    if (index >= kCapacity) return false;
    ranges_[index] = Range{start, start + length};
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
    for (uint32_t i = 0; i < count; i++) {
        if (pc >= ranges_[i].start && pc < ranges_[i].end) return true;
    }
    return false;
}

uint32_t StubCode::size() { return published_.load(std::memory_order_acquire); }

void StubCode::reset_for_test() {
    claimed_.store(0);
    published_.store(0);
}

}  // namespace stackreq
