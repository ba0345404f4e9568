#include "emitter/method_table.h"

#include "hotspot/vm_structs.h"
#include "native_unwind/safe_read.h"

namespace stackreq {

namespace {

uintptr_t method_of(jmethodID id) {
    uintptr_t method = 0;
    return read_at(reinterpret_cast<uintptr_t>(id), &method) ? method : 0;
}

}  // namespace

bool MethodTable::init(std::string* error) {
    VmStructs vm;
    if (!vm.init() || !vm.field_offset("Method", "_constMethod", &const_method_) ||
        !vm.field_offset("ConstMethod", "_code_size", &code_size_) ||
        !vm.type_size("ConstMethod", &const_method_size_)) {
        *error = "gHotSpotVMStructs has no Method::_constMethod, ConstMethod::_code_size or sizeof(ConstMethod)";
        return false;
    }
    // Every known Method* must lead to a ConstMethod whose bytecodes are readable.
    std::lock_guard<std::mutex> lock(mutex_);
    int32_t checked = 0;
    for (const auto& entry : methods_) {
        uintptr_t const_method = 0;
        uint16_t code_size = 0;
        if (!read_at(entry.first + const_method_, &const_method) || const_method == 0 ||
            !read_at(const_method + code_size_, &code_size)) {
            *error = "a jmethodID does not hold a Method* with a readable ConstMethod";
            return false;
        }
        if (++checked == 64) break;
    }
    if (checked == 0) {
        *error = "no method known to check the jmethodIDs on";
        return false;
    }
    ready_ = true;
    return true;
}

// HotSpot never frees a jmethodID's word (an unloaded method's is cleared), so it is read directly:
// this runs for every compiled frame a VMStructs walk records.
bool MethodTable::holds(jmethodID id, uintptr_t method) {
    return method != 0 && id != nullptr &&
           __atomic_load_n(reinterpret_cast<const uintptr_t*>(id), __ATOMIC_RELAXED) == method;
}

void MethodTable::add(const jmethodID* methods, int32_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int32_t i = 0; i < count; i++) {
        const uintptr_t method = method_of(methods[i]);
        if (method == 0) continue;
        // A Method* of a class unloaded since may be reused by this one: its bytecodes are read anew.
        methods_[method] = Entry{methods[i], 0, 0};
    }
}

bool MethodTable::resolve(uintptr_t method, uintptr_t bcp, jmethodID* id, int32_t* bci, bool* known) const {
    *known = false;
    if (!ready_) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = methods_.find(method);
    if (found == methods_.end()) return false;
    Entry& entry = found->second;
    *id = entry.id;
    *known = true;
    if (!holds(*id, method)) {
        // Its class was unloaded after the walk recorded the frame (the jmethodID no longer holds
        // the Method*, whose memory may be reused): the frame stays, as an unknown method, as
        // AsyncGetCallTrace's frames of unloaded classes do.
        entry.const_method = 0;
        *id = nullptr;
        *bci = 0;
        return true;
    }
    if (entry.const_method == 0) {
        uintptr_t const_method = 0;
        uint16_t code_size = 0;
        if (!read_at(method + const_method_, &const_method) || const_method == 0 ||
            !read_at(const_method + code_size_, &code_size)) {
            return false;
        }
        entry.const_method = const_method;
        entry.code_size = code_size;
    }
    const uintptr_t const_method = entry.const_method;
    const uint16_t code_size = entry.code_size;
    // A native method has no bytecodes, whatever its frame's bcp slot holds: the interpreter
    // leaves 0 there but saves its bcp register into it when the first call binds the native.
    if (code_size == 0) {
        *bci = -1;
        return true;
    }
    if (bcp == kEntryBcp) {
        *bci = 0;
        return true;
    }
    const uintptr_t code = const_method + const_method_size_;
    if (bcp < code || bcp >= code + code_size) return false;
    *bci = static_cast<int32_t>(bcp - code);
    return true;
}

}  // namespace stackreq
