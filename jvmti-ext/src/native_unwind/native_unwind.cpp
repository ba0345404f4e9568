#include "native_unwind/native_unwind.h"

#include "hotspot/stub_code.h"
#include "native_unwind/native_libraries.h"
#include "native_unwind/safe_read.h"
#include "native_unwind/unwind_arch.h"

namespace stackreq {

bool read_stack_word(const StackBounds& stack, uintptr_t address, uintptr_t* out) {
    if (address % sizeof(uintptr_t) != 0 || address < stack.low || address > stack.high - sizeof(uintptr_t)) {
        return false;
    }
    if (!stack.through_kernel) {
        *out = *reinterpret_cast<const uintptr_t*>(address);
        return true;
    }
    return read_at(address, out);
}

namespace {

// One frame up from registers, whose pc is in range. A return address is looked up at pc - 1:
// a call may be a function's last instruction, and the return address then lies in the next one.
// *outermost (when not null) is set when the frame is the thread's first (its rows say so).
bool step(const StackBounds& stack, const CodeRange& range, bool top, Registers* registers,
          bool* outermost = nullptr) {
    const UnwindRow* row = UnwindTable::find(range.unwind, top ? registers->pc : registers->pc - 1);
    Registers caller{};
    // Whether the caller's PC came from the link register: then a leaf's caller may have its sp.
    bool from_link = false;
    if (row != nullptr) {
        if (row->rule == CfaRule::kOutermost) {
            if (outermost != nullptr) *outermost = true;
            return false;
        }
        const uintptr_t cfa = (row->rule == CfaRule::kSp ? registers->sp : registers->fp) + row->cfa_offset;
        if (row->return_address_offset == kReturnAddressInRegister) {
            // Only the signal's own lr is known; above it a frame saved its return address or
            // its rows are wrong.
            if (!top || registers->lr == 0) return false;
            caller.pc = registers->lr;
            from_link = true;
        } else if (!read_stack_word(stack, cfa + row->return_address_offset, &caller.pc)) {
            return false;
        }
        caller.pc = return_address_of(caller.pc);
        caller.sp = cfa;
        caller.fp = registers->fp;
        if (row->fp_offset != 0 && !read_stack_word(stack, cfa + row->fp_offset, &caller.fp)) return false;
    } else if (!caller_without_rows(stack, top, *registers, &caller)) {
        return false;
    } else {
        from_link = top && caller.sp == registers->sp;
    }
    // Each caller's frame lies above its callee's, strictly but for a leaf's at the signal (whose
    // return address is in lr, sp untouched): the walk always ends.
    if (caller.sp < registers->sp || (caller.sp == registers->sp && !from_link) || caller.pc == 0) return false;
    *registers = caller;
    return true;
}

}  // namespace

uint32_t NativeUnwinder::unwind(const StackBounds& stack, Registers registers, uintptr_t* pcs, uint32_t max) {
    uint32_t count = 0;
    if (max == 0 || stack.high <= stack.low) return 0;
    for (bool top = true; count < max; top = false) {
        const CodeRange* range = NativeLibraries::find(top ? registers.pc : registers.pc - 1);
        if (range == nullptr) {
            if (top && StubCode::contains(registers.pc)) pcs[count++] = registers.pc;
            break;
        }
        pcs[count++] = registers.pc;
        if (!step(stack, *range, top, &registers)) break;
    }
    return count;
}

bool NativeUnwinder::caller_outside_objects(const StackBounds& stack, Registers registers, uint32_t max,
                                            Registers* out, bool* outermost) {
    *outermost = false;
    if (stack.high <= stack.low) return false;
    for (uint32_t frame = 0; frame < max; frame++) {
        const bool top = frame == 0;
        const CodeRange* range = NativeLibraries::find(top ? registers.pc : registers.pc - 1);
        if (range == nullptr) {
            *out = registers;
            return !top;
        }
        if (!step(stack, *range, top, &registers, outermost)) return false;
    }
    return false;
}

uintptr_t NativeUnwinder::signal_frame_above(const StackBounds& stack, Registers registers, uintptr_t restorer,
                                             uint32_t max) {
    if (restorer == 0 || stack.high <= stack.low) return 0;
    for (uint32_t frame = 0; frame < max; frame++) {
        const bool top = frame == 0;
        const CodeRange* range = NativeLibraries::find(top ? registers.pc : registers.pc - 1);
        if (range == nullptr || !step(stack, *range, top, &registers)) return 0;
        if (registers.pc == restorer) return signal_context_in_frame(stack, registers);
    }
    return 0;
}

}  // namespace stackreq
