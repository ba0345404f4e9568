// The call-frame information of a loaded object (its .eh_frame, found through .eh_frame_hdr),
// reduced to what the native unwinder needs: for each code address, where the caller's frame
// starts (the CFA: sp or fp plus an offset), where the caller's fp was saved and where the return
// address is (always CFA - 8 on x86_64; on aarch64 wherever the prologue stored x30, or still in
// x30). The target's register numbers and entry rules are unwind_arch.h's. Built in normal context
// from the object's mapped image; the unwinder (native_unwind.h) only searches the finished,
// immutable rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stackreq {

enum class CfaRule : uint8_t {
    kNone,      // no information for this address (a gap between functions, an unknown rule)
    kSp,        // CFA = sp + cfa_offset
    kFp,        // CFA = fp + cfa_offset
    kOutermost  // the return address is undefined: the thread's first frame, nothing above
};

// A row's return_address_offset when the return address is still in the link register (aarch64's
// x30: at a function's entry, in a leaf that never saves it, after an epilogue restored it). Only
// the signal's frame can use such a row: above it, the link register is a callee's.
constexpr int16_t kReturnAddressInRegister = 0;

struct UnwindRow {
    uint32_t start;      // first code address of the row, as an offset from the object's load base
    int32_t cfa_offset;
    int32_t fp_offset;   // the caller's fp is saved at CFA + fp_offset; 0 = fp is unchanged
    CfaRule rule;
    // The return address is saved at CFA + return_address_offset (-8 on x86_64), or
    // kReturnAddressInRegister. 16 bits keep the row at 16 bytes (libjvm has 300,000 rows); a
    // prologue storing x30 further from the CFA leaves its rows out.
    int16_t return_address_offset;
};
static_assert(sizeof(UnwindRow) == 16, "a row is 16 bytes, as before the return address's offset");

// Rows sorted by start; each holds until the next one's start. A page index (the first row of
// each 4 KiB of code) narrows a lookup to the rows of one page: a handler runs with cold caches,
// and a binary search over libjvm's 300,000 rows would miss the cache at nearly every step.
class UnwindTable {
public:
    static constexpr unsigned kPageShift = 12;

    // Reads the .eh_frame_hdr at eh_frame_hdr (the PT_GNU_EH_FRAME segment, mapped) of the object
    // loaded at base. Returns false, leaving the table empty, when the header uses an encoding
    // this reader does not know; FDEs it cannot read are left out (their code has no rows).
    bool build(uintptr_t base, const uint8_t* eh_frame_hdr);
    // The rows and their page index, as the handler reads them.
    struct View {
        const UnwindRow* rows;
        size_t row_count;
        const uint32_t* pages;  // pages[p]: the first row starting at or after page p
        size_t page_count;
        uintptr_t base;
    };
    View view() const { return View{rows_.data(), rows_.size(), pages_.data(), pages_.size(), base_}; }
    // Async-signal-safe: the row for the code at address, or null when none holds there.
    static const UnwindRow* find(const View& table, uintptr_t address);

    const std::vector<UnwindRow>& rows() const { return rows_; }

private:
    uintptr_t base_ = 0;
    std::vector<UnwindRow> rows_;
    std::vector<uint32_t> pages_;
};

}  // namespace stackreq
