#include "hotspot/code_pages.h"

namespace stackreq {

std::atomic<uintptr_t> CodePages::slots_[CodePages::kCapacity];

namespace {
constexpr uint32_t kMaxProbes = 64;

uint32_t home_slot(uintptr_t key) {
    return static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 40) & (CodePages::kCapacity - 1);
}
}  // namespace

bool CodePages::add(uintptr_t start, uintptr_t length) {
    if (length == 0 || start + length < start) return true;
    for (uintptr_t page = start / kPageSize; page <= (start + length - 1) / kPageSize; page++) {
        const uintptr_t key = page + 1;
        bool stored = false;
        for (uint32_t probe = 0; probe < kMaxProbes && !stored; probe++) {
            std::atomic<uintptr_t>& slot = slots_[(home_slot(key) + probe) & (kCapacity - 1)];
            uintptr_t seen = slot.load(std::memory_order_acquire);
            if (seen == 0 && slot.compare_exchange_strong(seen, key, std::memory_order_release,
                                                          std::memory_order_acquire)) {
                stored = true;
            } else {
                stored = seen == key;
            }
        }
        if (!stored) return false;
    }
    return true;
}

bool CodePages::contains_page(uintptr_t page) {
    const uintptr_t key = page + 1;
    for (uint32_t probe = 0; probe < kMaxProbes; probe++) {
        uintptr_t seen = slots_[(home_slot(key) + probe) & (kCapacity - 1)].load(std::memory_order_acquire);
        if (seen == key) return true;
        if (seen == 0) return false;
    }
    return false;
}

bool CodePages::contains(uintptr_t address, uintptr_t bytes) {
    if (bytes == 0 || address + bytes < address) return false;
    for (uintptr_t page = address / kPageSize; page <= (address + bytes - 1) / kPageSize; page++) {
        if (!contains_page(page)) return false;
    }
    return true;
}

void CodePages::reset_for_test() {
    for (auto& slot : slots_) slot.store(0, std::memory_order_relaxed);
}

}  // namespace stackreq
