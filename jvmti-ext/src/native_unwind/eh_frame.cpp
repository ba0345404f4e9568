#include "native_unwind/eh_frame.h"

#include <algorithm>
#include <cstring>

#include "native_unwind/unwind_arch.h"

namespace stackreq {

namespace {

// Pointer encodings (DW_EH_PE_*): the low nibble is the format, the high one how to apply it.
constexpr uint8_t kEncodingOmit = 0xff;
constexpr uint8_t kApplyPcRelative = 0x10;
constexpr uint8_t kApplyDataRelative = 0x30;
constexpr uint8_t kDataRelativeSigned4 = 0x3b;  // the only .eh_frame_hdr table encoding ld writes

struct Cursor {
    const uint8_t* at;
    const uint8_t* end;
    bool ok = true;

    bool has(size_t bytes) {
        ok = ok && at + bytes <= end;
        return ok;
    }
    template <typename T>
    T fixed() {
        T value{};
        if (!has(sizeof(T))) return value;
        std::memcpy(&value, at, sizeof(T));
        at += sizeof(T);
        return value;
    }
    uint64_t uleb() {
        uint64_t value = 0;
        for (unsigned shift = 0; has(1); shift += 7) {
            const uint8_t byte = *at++;
            if (shift < 64) value |= static_cast<uint64_t>(byte & 0x7f) << shift;
            if ((byte & 0x80) == 0) return value;
        }
        return value;
    }
    int64_t sleb() {
        int64_t value = 0;
        unsigned shift = 0;
        uint8_t byte = 0;
        do {
            if (!has(1)) return 0;
            byte = *at++;
            if (shift < 64) value |= static_cast<int64_t>(static_cast<uint64_t>(byte & 0x7f) << shift);
            shift += 7;
        } while ((byte & 0x80) != 0);
        if (shift < 64 && (byte & 0x40) != 0) value |= -(static_cast<int64_t>(1) << shift);
        return value;
    }
    // A pointer in encoding; data_base is what data-relative values are relative to.
    uint64_t encoded(uint8_t encoding, uintptr_t data_base) {
        const uintptr_t field = reinterpret_cast<uintptr_t>(at);
        uint64_t value = 0;
        switch (encoding & 0x0f) {
            case 0x00: value = fixed<uint64_t>(); break;
            case 0x01: value = uleb(); break;
            case 0x02: value = fixed<uint16_t>(); break;
            case 0x03: value = fixed<uint32_t>(); break;
            case 0x04: value = fixed<uint64_t>(); break;
            case 0x09: value = static_cast<uint64_t>(sleb()); break;
            case 0x0a: value = static_cast<uint64_t>(static_cast<int64_t>(fixed<int16_t>())); break;
            case 0x0b: value = static_cast<uint64_t>(static_cast<int64_t>(fixed<int32_t>())); break;
            case 0x0c: value = fixed<uint64_t>(); break;
            default: ok = false; return 0;
        }
        switch (encoding & 0x70) {
            case 0x00: return value;
            case kApplyPcRelative: return value + field;
            case kApplyDataRelative: return value + data_base;
            default: ok = false; return 0;
        }
    }
};

// An entry's extent (CIE or FDE): its length field, then its body up to end.
bool enter_entry(const uint8_t* entry, Cursor* body) {
    Cursor length{entry, entry + 12};
    uint64_t size = length.fixed<uint32_t>();
    if (size == 0xffffffffu) size = length.fixed<uint64_t>();
    if (!length.ok || size == 0 || size > (1u << 24)) return false;
    *body = Cursor{length.at, length.at + size};
    return true;
}

struct Cie {
    uint64_t code_align = 1;
    int64_t data_align = 1;
    uint8_t fde_encoding = 0;
    bool has_augmentation_data = false;
    Cursor initial_instructions{nullptr, nullptr};
};

bool read_cie(const uint8_t* entry, Cie* cie) {
    Cursor c{nullptr, nullptr};
    if (!enter_entry(entry, &c) || c.fixed<uint32_t>() != 0) return false;
    const uint8_t version = c.fixed<uint8_t>();
    const char* augmentation = reinterpret_cast<const char*>(c.at);
    const size_t augmentation_length = strnlen(augmentation, static_cast<size_t>(c.end - c.at));
    if (!c.has(augmentation_length + 1)) return false;
    c.at += augmentation_length + 1;
    cie->code_align = c.uleb();
    cie->data_align = c.sleb();
    if (version == 1) c.fixed<uint8_t>();
    else c.uleb();
    if (augmentation[0] == 'z') {
        cie->has_augmentation_data = true;
        const uint64_t data_length = c.uleb();
        Cursor data{c.at, c.at + data_length};
        for (size_t i = 1; i < augmentation_length && data.ok; i++) {
            const char kind = augmentation[i];
            if (kind == 'R') {
                cie->fde_encoding = data.fixed<uint8_t>();
            } else if (kind == 'P') {
                const uint8_t encoding = data.fixed<uint8_t>();
                data.encoded(static_cast<uint8_t>(encoding & 0x7f), 0);
            } else if (kind == 'L') {
                data.fixed<uint8_t>();
            } else if (kind != 'S' && kind != 'B') {
                return false;
            }
        }
        if (!data.ok || !c.has(data_length)) return false;
        c.at += data_length;
    } else if (augmentation_length != 0) {
        return false;
    }
    cie->initial_instructions = Cursor{c.at, c.end};
    return c.ok;
}

enum class ReturnAddress : uint8_t {
    kUnknown,     // the rows cannot say: no row
    kAtOffset,    // saved at CFA + return_address_offset
    kInRegister,  // still in its register (aarch64's x30): only a signal's frame can use that
};

// What the CFA program says at one code address, for the registers the unwinder follows.
struct FrameState {
    uint64_t cfa_register = 0;
    int64_t cfa_offset = 0;
    bool cfa_known = true;
    bool fp_saved = false;
    int64_t fp_offset = 0;
    ReturnAddress return_address = ReturnAddress::kUnknown;
    int64_t return_address_offset = 0;
    bool outermost = false;
};

// The state before a CIE's initial instructions: the target's CFA and return address at a
// function's entry (unwind_arch.h); a CIE normally states the CFA itself.
FrameState entry_state() {
    const CfiConventions& conventions = kCfiConventions;
    FrameState state;
    state.cfa_register = conventions.sp_register;
    state.cfa_offset = conventions.entry_cfa_offset;
    if (conventions.return_address_in_register) {
        state.return_address = ReturnAddress::kInRegister;
    } else {
        state.return_address = ReturnAddress::kAtOffset;
        state.return_address_offset = conventions.return_address_offset;
    }
    return state;
}

class RowWriter {
public:
    RowWriter(uintptr_t base, std::vector<UnwindRow>* rows) : base_(base), rows_(rows) {}

    bool emit(uint64_t location, const FrameState& state) {
        if (location < base_ || location - base_ > UINT32_MAX) return false;
        const CfiConventions& conventions = kCfiConventions;
        UnwindRow row{static_cast<uint32_t>(location - base_), 0, 0, CfaRule::kNone, 0};
        // A saved return address's offset fits the row's 16 bits, and is never 0 (kInRegister's).
        const bool return_address_usable =
            state.return_address == ReturnAddress::kInRegister ||
            (state.return_address == ReturnAddress::kAtOffset && state.return_address_offset != 0 &&
             state.return_address_offset >= INT16_MIN && state.return_address_offset <= INT16_MAX);
        const bool usable = state.cfa_known && return_address_usable &&
                            (state.cfa_register == conventions.sp_register ||
                             state.cfa_register == conventions.fp_register) &&
                            state.cfa_offset >= INT32_MIN && state.cfa_offset <= INT32_MAX &&
                            state.fp_offset >= INT32_MIN && state.fp_offset <= INT32_MAX;
        if (state.outermost) {
            row.rule = CfaRule::kOutermost;
        } else if (usable) {
            row.rule = state.cfa_register == conventions.sp_register ? CfaRule::kSp : CfaRule::kFp;
            row.cfa_offset = static_cast<int32_t>(state.cfa_offset);
            row.fp_offset = state.fp_saved ? static_cast<int32_t>(state.fp_offset) : 0;
            row.return_address_offset = state.return_address == ReturnAddress::kInRegister
                                            ? kReturnAddressInRegister
                                            : static_cast<int16_t>(state.return_address_offset);
        }
        if (!pending_.empty() && pending_.back().start == row.start) pending_.back() = row;
        else if (!pending_.empty() && pending_.back().start > row.start) return false;
        else pending_.push_back(row);
        return true;
    }

    // Appends the rows of one function (its FDE) and the gap row at its end, unless they overlap
    // the function before.
    void commit(uint64_t end) {
        if (pending_.empty() || end < base_ || end - base_ > UINT32_MAX) return discard();
        if (!rows_->empty()) {
            // The previous function's gap row gives way to a function that starts where it ends.
            if (rows_->back().rule == CfaRule::kNone && rows_->back().start == pending_.front().start) {
                rows_->pop_back();
            }
            if (!rows_->empty() && rows_->back().start >= pending_.front().start) return discard();
        }
        rows_->insert(rows_->end(), pending_.begin(), pending_.end());
        rows_->push_back(UnwindRow{static_cast<uint32_t>(end - base_), 0, 0, CfaRule::kNone, 0});
        pending_.clear();
    }
    void discard() { pending_.clear(); }

private:
    uintptr_t base_;
    std::vector<UnwindRow>* rows_;
    std::vector<UnwindRow> pending_;
};

// Runs a CFA program from state at location; with rows, writes a row at each advance.
// initial is the state the CIE's instructions produce (DW_CFA_restore's target).
bool run_program(Cursor program, const Cie& cie, FrameState* state, const FrameState& initial, uint64_t* location,
                 RowWriter* rows) {
    constexpr int kMaxRemembered = 16;
    const CfiConventions& conventions = kCfiConventions;
    const uint64_t kRegisterFp = conventions.fp_register;
    const uint64_t kRegisterSp = conventions.sp_register;
    const uint64_t kRegisterReturnAddress = conventions.return_address_column;
    FrameState remembered[kMaxRemembered];
    int depth = 0;
    auto advance = [&](uint64_t delta) {
        if (rows != nullptr && !rows->emit(*location, *state)) return false;
        *location += delta * cie.code_align;
        return true;
    };
    auto set_offset = [&](uint64_t reg, int64_t offset) {
        if (reg == kRegisterFp) {
            state->fp_saved = true;
            state->fp_offset = offset;
        } else if (reg == kRegisterReturnAddress) {
            const bool understood =
                !conventions.return_address_only_at_offset || offset == conventions.return_address_offset;
            state->return_address = understood ? ReturnAddress::kAtOffset : ReturnAddress::kUnknown;
            state->return_address_offset = offset;
        }
    };
    auto set_unknown = [&](uint64_t reg) {
        if (reg == kRegisterFp) state->fp_saved = false;
        if (reg == kRegisterReturnAddress) state->return_address = ReturnAddress::kUnknown;
    };
    auto restore = [&](uint64_t reg) {
        if (reg == kRegisterFp) {
            state->fp_saved = initial.fp_saved;
            state->fp_offset = initial.fp_offset;
        } else if (reg == kRegisterReturnAddress) {
            state->return_address = initial.return_address;
            state->return_address_offset = initial.return_address_offset;
            state->outermost = initial.outermost;
        }
    };
    while (program.ok && program.at < program.end) {
        const uint8_t op = program.fixed<uint8_t>();
        const uint8_t low = op & 0x3f;
        switch (op >> 6) {
            case 1: if (!advance(low)) return false; continue;
            case 2: set_offset(low, static_cast<int64_t>(program.uleb()) * cie.data_align); continue;
            case 3: restore(low); continue;
            default: break;
        }
        switch (op) {
            case 0x00: break;  // nop
            case 0x01: {       // set_loc
                const uint64_t target = program.encoded(cie.fde_encoding, 0);
                if (target < *location || !advance(0)) return false;
                *location = target;
                break;
            }
            case 0x02: if (!advance(program.fixed<uint8_t>())) return false; break;
            case 0x03: if (!advance(program.fixed<uint16_t>())) return false; break;
            case 0x04: if (!advance(program.fixed<uint32_t>())) return false; break;
            case 0x05: {  // offset_extended
                const uint64_t reg = program.uleb();
                set_offset(reg, static_cast<int64_t>(program.uleb()) * cie.data_align);
                break;
            }
            case 0x06: restore(program.uleb()); break;  // restore_extended
            case 0x07: {                                 // undefined
                const uint64_t reg = program.uleb();
                if (reg == kRegisterReturnAddress) state->outermost = true;
                else if (reg == kRegisterFp) state->fp_saved = false;
                break;
            }
            case 0x08: {  // same_value
                const uint64_t reg = program.uleb();
                if (reg == kRegisterFp) state->fp_saved = false;
                // aarch64: the return address is back in x30 (an epilogue's restore).
                if (reg == kRegisterReturnAddress && conventions.return_address_in_register) {
                    state->return_address = ReturnAddress::kInRegister;
                }
                break;
            }
            case 0x09: {                                                                  // register
                const uint64_t reg = program.uleb();
                program.uleb();
                set_unknown(reg);
                break;
            }
            case 0x0a:  // remember_state
                if (depth == kMaxRemembered) return false;
                remembered[depth++] = *state;
                break;
            case 0x0b:  // restore_state
                if (depth == 0) return false;
                *state = remembered[--depth];
                break;
            case 0x0c:  // def_cfa
                state->cfa_register = program.uleb();
                state->cfa_offset = static_cast<int64_t>(program.uleb());
                state->cfa_known = true;
                break;
            case 0x0d:  // def_cfa_register
                state->cfa_register = program.uleb();
                state->cfa_known = true;
                break;
            case 0x0e: state->cfa_offset = static_cast<int64_t>(program.uleb()); break;  // def_cfa_offset
            case 0x0f: {  // def_cfa_expression
                // x86_64: ld describes PLT entries this way (the return address at sp, 8 more after
                // the lazy-binding push) and glibc its signal trampoline. Taken as the PLT's common
                // case, sp + 8: from a PLT entry the unwinder then reaches its caller. Elsewhere the
                // expression is not evaluated: no row until a rule states the CFA again.
                const uint64_t length = program.uleb();
                if (!program.has(length)) return false;
                program.at += length;
                if (conventions.cfa_expression_is_plt) {
                    state->cfa_register = kRegisterSp;
                    state->cfa_offset = 8;
                    state->cfa_known = true;
                } else {
                    state->cfa_known = false;
                }
                break;
            }
            case 0x10:    // expression
            case 0x16: {  // val_expression
                const uint64_t reg = program.uleb();
                const uint64_t length = program.uleb();
                if (!program.has(length)) return false;
                program.at += length;
                set_unknown(reg);
                break;
            }
            case 0x11: {  // offset_extended_sf
                const uint64_t reg = program.uleb();
                set_offset(reg, program.sleb() * cie.data_align);
                break;
            }
            case 0x12:  // def_cfa_sf
                state->cfa_register = program.uleb();
                state->cfa_offset = program.sleb() * cie.data_align;
                state->cfa_known = true;
                break;
            case 0x13: state->cfa_offset = program.sleb() * cie.data_align; break;  // def_cfa_offset_sf
            case 0x14: {                                                           // val_offset
                const uint64_t reg = program.uleb();
                program.uleb();
                set_unknown(reg);
                break;
            }
            case 0x15: {  // val_offset_sf
                const uint64_t reg = program.uleb();
                program.sleb();
                set_unknown(reg);
                break;
            }
            case 0x2d:  // AARCH64_negate_ra_state (unwind_arch.h)
                if (!conventions.negate_ra_state_known) return false;
                break;
            case 0x2e: program.uleb(); break;  // GNU_args_size
            case 0x2f: {                       // GNU_negative_offset_extended
                const uint64_t reg = program.uleb();
                set_offset(reg, -static_cast<int64_t>(program.uleb()) * cie.data_align);
                break;
            }
            default: return false;
        }
    }
    return program.ok && (rows == nullptr || rows->emit(*location, *state));
}

bool read_fde(const uint8_t* entry, RowWriter* rows) {
    Cursor c{nullptr, nullptr};
    if (!enter_entry(entry, &c)) return false;
    const uint8_t* cie_pointer_field = c.at;
    const uint32_t cie_pointer = c.fixed<uint32_t>();
    if (!c.ok || cie_pointer == 0) return false;
    Cie cie;
    if (!read_cie(cie_pointer_field - cie_pointer, &cie)) return false;
    uint64_t location = c.encoded(cie.fde_encoding, 0);
    const uint64_t range = c.encoded(static_cast<uint8_t>(cie.fde_encoding & 0x0f), 0);
    if (cie.has_augmentation_data) {
        const uint64_t length = c.uleb();
        if (!c.has(length)) return false;
        c.at += length;
    }
    if (!c.ok) return false;
    const uint64_t end = location + range;
    FrameState initial = entry_state();
    uint64_t ignored = location;
    if (!run_program(cie.initial_instructions, cie, &initial, initial, &ignored, nullptr)) return false;
    FrameState state = initial;
    if (!run_program(c, cie, &state, initial, &location, rows)) {
        rows->discard();
        return false;
    }
    rows->commit(end);
    return true;
}

}  // namespace

bool UnwindTable::build(uintptr_t base, const uint8_t* eh_frame_hdr) {
    base_ = base;
    rows_.clear();
    const uintptr_t header = reinterpret_cast<uintptr_t>(eh_frame_hdr);
    Cursor c{eh_frame_hdr, eh_frame_hdr + 16};
    const uint8_t version = c.fixed<uint8_t>();
    const uint8_t frame_pointer_encoding = c.fixed<uint8_t>();
    const uint8_t count_encoding = c.fixed<uint8_t>();
    const uint8_t table_encoding = c.fixed<uint8_t>();
    if (version != 1 || frame_pointer_encoding == kEncodingOmit || count_encoding == kEncodingOmit ||
        table_encoding != kDataRelativeSigned4) {
        return false;
    }
    c.encoded(frame_pointer_encoding, header);
    const uint64_t count = c.encoded(count_encoding, header);
    if (!c.ok || count > (1u << 24)) return false;
    // The table: (initial location, FDE address) pairs as 4-byte offsets from the header, sorted.
    const int32_t* table = reinterpret_cast<const int32_t*>(c.at);
    rows_.reserve(count * 4);
    RowWriter writer(base, &rows_);
    for (uint64_t i = 0; i < count; i++) {
        int32_t fde_offset;
        std::memcpy(&fde_offset, &table[2 * i + 1], sizeof(fde_offset));
        read_fde(eh_frame_hdr + fde_offset, &writer);
    }
    rows_.shrink_to_fit();
    pages_.clear();
    if (!rows_.empty()) {
        const size_t page_count = (static_cast<size_t>(rows_.back().start) >> kPageShift) + 1;
        pages_.reserve(page_count);
        size_t row = 0;
        for (size_t page = 0; page < page_count; page++) {
            while (row < rows_.size() && (static_cast<size_t>(rows_[row].start) >> kPageShift) < page) row++;
            pages_.push_back(static_cast<uint32_t>(row));
        }
    }
    return true;
}

const UnwindRow* UnwindTable::find(const View& table, uintptr_t address) {
    if (address < table.base || address - table.base > UINT32_MAX || table.row_count == 0) return nullptr;
    const uint32_t offset = static_cast<uint32_t>(address - table.base);
    const size_t page = offset >> kPageShift;
    // The answer is the last row starting at or before offset: at the earliest the last one
    // before this page, at the latest the last one before the next page.
    size_t low = 0, high = table.row_count;
    if (page < table.page_count) {
        low = table.pages[page] > 0 ? table.pages[page] - 1 : 0;
        if (page + 1 < table.page_count) high = table.pages[page + 1];
    } else if (table.page_count > 0) {
        low = table.pages[table.page_count - 1];
    }
    while (low < high) {  // first row whose start is above offset
        const size_t middle = low + (high - low) / 2;
        if (table.rows[middle].start <= offset) low = middle + 1;
        else high = middle;
    }
    if (low == 0 || table.rows[low - 1].start > offset || table.rows[low - 1].rule == CfaRule::kNone) {
        return nullptr;
    }
    return &table.rows[low - 1];
}

}  // namespace stackreq
