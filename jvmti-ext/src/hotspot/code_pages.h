// The memory pages that hold JIT-compiled methods, learnt from JVMTI CompiledMethodLoad. The
// walker reads the instructions at a signal's PC (to see whether the compiled frame there is
// built yet, or torn down already) only when its page is one of these: the code cache never
// gives committed pages back, so such a read cannot fault, even after the method is unloaded.
// Pages are added in normal context; contains() is lock-free and async-signal-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace stackreq {

class CodePages {
public:
    static constexpr uint32_t kCapacity = 1u << 17;  // pages of 4 KiB: 512 MiB of code
    static constexpr uintptr_t kPageSize = 4096;

    // Normal context, any thread. Returns false when the table is full (pages added later are
    // not known, and their frames are walked as before).
    static bool add(uintptr_t start, uintptr_t length);
    // Async-signal-safe: whether every byte of [address, address + bytes) lies in a known page.
    static bool contains(uintptr_t address, uintptr_t bytes);
    static void reset_for_test();

private:
    static bool contains_page(uintptr_t page);
    // Open addressing over page number + 1 (0 = free slot); slots are only ever filled.
    static std::atomic<uintptr_t> slots_[kCapacity];
};

}  // namespace stackreq
