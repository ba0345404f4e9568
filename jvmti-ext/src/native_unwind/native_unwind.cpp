#include "native_unwind/native_unwind.h"

#include "hotspot/stub_code.h"
#include "native_unwind/native_libraries.h"
#include "native_unwind/safe_read.h"

namespace stackreq {

namespace {

bool read_word(const StackBounds& stack, uintptr_t address, uintptr_t* out) {
    if (address % sizeof(uintptr_t) != 0 || address < stack.low || address > stack.high - sizeof(uintptr_t)) {
        return false;
    }
    if (!stack.through_kernel) {
        *out = *reinterpret_cast<const uintptr_t*>(address);
        return true;
    }
    return read_at(address, out);
}

// One frame up from registers, whose pc is in range. A return address is looked up at pc - 1:
// a call may be a function's last instruction, and the return address then lies in the next one.
// *outermost (when not null) is set when the frame is the thread's first (its rows say so).
bool step(const StackBounds& stack, const CodeRange& range, bool top, Registers* registers,
          bool* outermost = nullptr) {
    const UnwindRow* row = UnwindTable::find(range.unwind, top ? registers->pc : registers->pc - 1);
    Registers caller{};
    if (row != nullptr) {
        if (row->rule == CfaRule::kOutermost) {
            if (outermost != nullptr) *outermost = true;
            return false;
        }
        const uintptr_t cfa = (row->rule == CfaRule::kSp ? registers->sp : registers->fp) + row->cfa_offset;
        if (!read_word(stack, cfa - sizeof(uintptr_t), &caller.pc)) return false;
        caller.sp = cfa;
        caller.fp = registers->fp;
        if (row->fp_offset != 0 && !read_word(stack, cfa + row->fp_offset, &caller.fp)) return false;
    } else if (top && read_word(stack, registers->sp, &caller.pc) && caller.pc != 0 &&
               NativeLibraries::find(caller.pc - 1) != nullptr) {
        // No rows at the signal PC: hand-written assembly (libjvm's copy routines). Such code is
        // mostly a leaf that pushes nothing, its return address at sp; the frame pointer would
        // still be its caller's, and following it would drop that caller. Taken only when the
        // word at sp is an address in a loaded object's code.
        caller.sp = registers->sp + sizeof(uintptr_t);
        caller.fp = registers->fp;
    } else {
        // No rows here: the frame pointer chain, as code built with frame pointers keeps it.
        if (registers->fp < registers->sp || !read_word(stack, registers->fp, &caller.fp) ||
            !read_word(stack, registers->fp + sizeof(uintptr_t), &caller.pc)) {
            return false;
        }
        caller.sp = registers->fp + 2 * sizeof(uintptr_t);
    }
    // Each caller's frame lies strictly above its callee's: the walk always ends.
    if (caller.sp <= registers->sp || caller.pc == 0) return false;
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
        if (registers.pc == restorer) return registers.sp;
    }
    return 0;
}

}  // namespace stackreq
