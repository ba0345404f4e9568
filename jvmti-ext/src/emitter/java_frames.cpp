#include "emitter/java_frames.h"

#include <algorithm>

namespace stackreq {

namespace {

JavaFrameFailures g_failures;

// Whether the compiled frame i is described as it was: code the JVM reported, and when that is a
// compiled method, the one the frame's code blob named at the signal (code freed and reused by
// another method since would otherwise give that method's frames).
bool described(const CompiledMethods& code, const MethodTable& methods, const RequestSlot& slot, int32_t i) {
    jmethodID id = nullptr;
    if (code.compiled_method_at(slot.physical_pcs[i], &id)) {
        return methods.holds(id, reinterpret_cast<uintptr_t>(slot.frames[i].method));
    }
    return code.knows(slot.physical_pcs[i]);
}

}  // namespace

const JavaFrameFailures& java_frame_failures() { return g_failures; }

bool java_frames_described(const CompiledMethods& code, const MethodTable& methods, const RequestSlot& slot) {
    for (int32_t i = 0; i < slot.physical_count; i++) {
        if (slot.frames[i].bci_or_marker == kCompiledFrame && !described(code, methods, slot, i)) return false;
    }
    return true;
}

bool build_java_frames(const CompiledMethods& code, const MethodTable& methods, RequestSlot& slot,
                       int32_t capacity, std::vector<CallFrame>* scratch, const char** failure) {
    scratch->clear();
    bool whole = true;
    const char* why = "no-frames";
    for (int32_t i = 0; i < slot.physical_count && whole; i++) {
        const CallFrame& walked = slot.frames[i];
        const uintptr_t value = slot.physical_pcs[i];
        if (walked.bci_or_marker == kInterpretedFrame) {
            jmethodID id = nullptr;
            int32_t bci = 0;
            // The signal's top frame runs at the interpreter's bytecode pointer register; its frame
            // slot is saved at calls only. When the register is not in the frame's method and the
            // handler could not show that the saved one is the frame's (TopInterpreted), the
            // stack cannot be told, and fails.
            // A walk that starts at the caller of the code at the signal (an adapter the interpreter
            // jumped to) has no register for it (top_bcp 0): its saved one is its bytecode.
            const bool running = i == 0 && !slot.physical_from_anchor && slot.vmstructs.top_bcp != 0;
            const uintptr_t method = reinterpret_cast<uintptr_t>(walked.method);
            bool known = false;
            if (running && slot.vmstructs.top_interpreted == TopInterpreted::kEntering) {
                whole = methods.resolve(method, kEntryBcp, &id, &bci, &known);
            } else {
                whole = methods.resolve(method, running ? slot.vmstructs.top_bcp : value, &id, &bci, &known);
                if (!whole && known && running && slot.vmstructs.top_interpreted == TopInterpreted::kRegisterOrSaved) {
                    whole = methods.resolve(method, value, &id, &bci, &known);
                }
            }
            if (whole) scratch->emplace_back(bci, id, bci < 0 ? FrameType::kNative : FrameType::kInterpreted);
            if (!whole) {
                (known ? g_failures.bcp_outside : g_failures.method_unknown)++;
                why = known ? "bcp-outside-method" : "unknown-method";
            }
            continue;
        }
        // From the frame anchor the VM's own frames (a runtime stub that called into the VM) come
        // first; anywhere else VM code is a frame the walk does not understand (a deoptimization
        // blob's return address).
        if (slot.physical_from_anchor && scratch->empty() && code.in_vm_code(value)) continue;
        whole = described(code, methods, slot, i) && code.append_frames_at(value, i == 0 && slot.vmstructs.top_unbuilt, scratch) > 0;
        if (!whole) {
            g_failures.code_undescribed++;
            why = "undescribed-code";
        }
    }
    if (!whole || scratch->empty()) {
        if (failure != nullptr) *failure = why;
        slot.frame_count = 0;
        return false;
    }
    const int32_t count = std::min<int32_t>(capacity, static_cast<int32_t>(scratch->size()));
    if (count < static_cast<int32_t>(scratch->size())) slot.truncated = true;
    std::copy(scratch->begin(), scratch->begin() + count, slot.frames);
    slot.frame_count = count;
    return true;
}

}  // namespace stackreq
