#include "emitter/frame_typer.h"

namespace stackreq {

int32_t type_frames(const CompiledMethods& code, uintptr_t top_pc, const uintptr_t* pcs, int32_t pc_count,
                    bool from_anchor, CallFrame* frames, int32_t count) {
    int32_t typed = 0;
    int32_t physical = 0;
    if (from_anchor) {
        while (physical < pc_count && code.in_vm_code(pcs[physical])) physical++;
    } else {
        typed = code.type_top_frames(top_pc, frames, count);
        if (typed == 0) return 0;
        physical = 1;
    }
    for (; physical < pc_count && typed < count; physical++) {
        const int32_t caller = code.type_caller_frames(pcs[physical], frames + typed, count - typed);
        if (caller == 0) break;
        typed += caller;
    }
    return typed;
}

}  // namespace stackreq
