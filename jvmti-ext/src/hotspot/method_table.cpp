#include "hotspot/method_table.h"

#include <vector>

#include "hotspot/vm_structs.h"
#include "native_unwind/safe_read.h"

namespace stackreq {

namespace {

// The Method* in the word a jmethodID points to (JDK 11 to 25), 0 when that word is not readable.
uintptr_t method_in_word_of(jmethodID id) {
    uintptr_t method = 0;
    return read_at(reinterpret_cast<uintptr_t>(id), &method) ? method : 0;
}

}  // namespace

bool MethodTable::init_layout(std::string* error) {
    VmStructs vm;
    if (!vm.init() || !vm.field_offset("Method", "_constMethod", &layout_.ids.const_method) ||
        !vm.field_offset("ConstMethod", "_code_size", &layout_.code_size) ||
        !vm.type_size("ConstMethod", &layout_.const_method_size)) {
        *error = "gHotSpotVMStructs has no Method::_constMethod, ConstMethod::_code_size or sizeof(ConstMethod)";
        return false;
    }
    return true;
}

// Every known Method* must lead to a ConstMethod whose bytecodes are readable.
bool MethodTable::check_word_form(std::string* error) {
    int32_t checked = 0;
    for (const auto& entry : methods_) {
        uintptr_t const_method = 0;
        uint16_t code_size = 0;
        if (!read_at(entry.first + layout_.ids.const_method, &const_method) || const_method == 0 ||
            !read_at(const_method + layout_.code_size, &code_size)) {
            *error = "a jmethodID does not hold a Method* with a readable ConstMethod";
            return false;
        }
        if (++checked == 64) break;
    }
    return true;
}

// Each of java.lang.Object's jmethodIDs (JVMTI's) must be one of its methods' in its class, which
// gHotSpotVMStructs names.
bool MethodTable::check_number_form(jvmtiEnv* jvmti, JNIEnv* jni, std::string* error) {
    VmStructs vm;
    uintptr_t object_klass_field = 0, object_klass = 0;
    if (!vm.init() || !read_method_id_layout(vm, &layout_.ids, error)) return false;
    if (!(vm.static_address_containing("vmClasses", "Object_klass_knum", &object_klass_field) ||
          vm.static_address_containing("SystemDictionary", "Object_klass_knum", &object_klass_field)) ||
        !read_at(object_klass_field, &object_klass) || object_klass == 0) {
        *error = "gHotSpotVMStructs does not name java.lang.Object's class";
        return false;
    }
    jclass object = jni->FindClass("java/lang/Object");
    jint count = 0;
    jmethodID* expected = nullptr;
    const bool listed = object != nullptr && jvmti->GetClassMethods(object, &count, &expected) == JVMTI_ERROR_NONE;
    jni->ExceptionClear();
    if (object != nullptr) jni->DeleteLocalRef(object);
    if (!listed) {
        *error = "java.lang.Object's methods are not available";
        return false;
    }
    bool found = count > 0;
    for (jint i = 0; found && i < count; i++) {
        uintptr_t method = 0;
        found = method_of(layout_.ids, object_klass, expected[i], &method);
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(expected));
    if (!found) {
        *error = "java.lang.Object's class does not keep the jmethodIDs JVMTI gives for its methods";
        return false;
    }
    return true;
}

bool MethodTable::init(jvmtiEnv* jvmti, JNIEnv* jni, std::string* error) {
    if (!init_layout(error)) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!methods_.empty()) {
        if (!check_word_form(error)) return false;
    } else if (ids_.empty()) {
        *error = "no method known to check the jmethodIDs on";
        return false;
    } else {
        if (!check_number_form(jvmti, jni, error)) return false;
        form_ = IdForm::kNumberInJvmTable;
    }
    jvmti_ = jvmti;
    ready_ = true;
    return true;
}

void MethodTable::use_number_form_for_test(const Layout& layout, bool (*ids_valid)(jmethodID)) {
    std::lock_guard<std::mutex> lock(mutex_);
    layout_ = layout;
    ids_valid_for_test_ = ids_valid;
    form_ = IdForm::kNumberInJvmTable;
    ready_ = true;
}

void MethodTable::add(jclass klass, const jmethodID* methods, int32_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (form_ == IdForm::kNumberInJvmTable) {
        ids_.insert(methods, methods + count);
        if (ready_) add_through_class(klass, methods, count);
        return;
    }
    for (int32_t i = 0; i < count; i++) {
        // Until init tells the forms apart, a jmethodID whose word cannot be read is taken for a number.
        const uintptr_t method = method_in_word_of(methods[i]);
        if (method == 0) {
            ids_.insert(methods[i]);
            continue;
        }
        // A Method* of a class unloaded since may be reused by this one: its bytecodes are read anew.
        methods_[method] = Entry{methods[i], 0, 0};
    }
}

void MethodTable::add_through_class(jclass klass, const jmethodID* methods, int32_t count) {
    uintptr_t instance_klass = 0;
    std::vector<MethodAndId> class_methods;
    if (!instance_klass_of(layout_.ids, klass, &instance_klass) ||
        !methods_with_ids(layout_.ids, instance_klass, &class_methods)) {
        return;  // looked up when first seen
    }
    // Only a jmethodID of this class counts: a collector that colours its pointers makes the
    // reference unreadable, and what it leads to is then not this class.
    const std::unordered_set<jmethodID> own(methods, methods + count);
    for (const MethodAndId& method : class_methods) {
        if (own.count(method.id) != 0) methods_[method.method] = Entry{method.id, 0, 0};
    }
}

bool MethodTable::id_valid(jmethodID id) const {
    if (ids_valid_for_test_ != nullptr) return ids_valid_for_test_(id);
    jint modifiers = 0;
    return jvmti_ != nullptr && jvmti_->GetMethodModifiers(id, &modifiers) == JVMTI_ERROR_NONE;
}

MethodTable::Entry* MethodTable::entry_of(uintptr_t method, bool* unloaded) const {
    *unloaded = false;
    auto found = methods_.find(method);
    if (form_ == IdForm::kWordHoldsMethod) {
        if (found == methods_.end()) return nullptr;
        // HotSpot never frees a jmethodID's word (an unloaded method's is cleared).
        *unloaded = __atomic_load_n(reinterpret_cast<const uintptr_t*>(found->second.id), __ATOMIC_RELAXED) != method;
        return &found->second;
    }
    if (found != methods_.end() && id_valid(found->second.id)) return &found->second;
    jmethodID id = nullptr;
    if (!jmethod_id_of(layout_.ids, method, &id) || ids_.count(id) == 0 || !id_valid(id)) {
        // A method seen before whose class is gone, and nothing else there now: an unloaded method.
        *unloaded = found != methods_.end();
        return *unloaded ? &found->second : nullptr;
    }
    Entry& entry = methods_[method];
    entry = Entry{id, 0, 0};
    return &entry;
}

bool MethodTable::holds(jmethodID id, uintptr_t method) const {
    if (method == 0 || id == nullptr) return false;
    if (form_ == IdForm::kWordHoldsMethod) {
        // Read directly: this runs for every compiled frame a VMStructs walk records.
        return __atomic_load_n(reinterpret_cast<const uintptr_t*>(id), __ATOMIC_RELAXED) == method;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    bool unloaded = false;
    const Entry* entry = entry_of(method, &unloaded);
    return entry != nullptr && !unloaded && entry->id == id;
}

bool MethodTable::resolve(uintptr_t method, uintptr_t bcp, jmethodID* id, int32_t* bci, bool* known) const {
    *known = false;
    if (!ready_) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    bool unloaded = false;
    Entry* found = entry_of(method, &unloaded);
    if (found == nullptr) return false;
    Entry& entry = *found;
    *id = entry.id;
    *known = true;
    if (unloaded) {
        // Its class was unloaded after the walk recorded the frame (the jmethodID no longer names
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
        if (!read_at(method + layout_.ids.const_method, &const_method) || const_method == 0 ||
            !read_at(const_method + layout_.code_size, &code_size)) {
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
    const uintptr_t code = const_method + layout_.const_method_size;
    if (bcp < code || bcp >= code + code_size) return false;
    *bci = static_cast<int32_t>(bcp - code);
    return true;
}

}  // namespace stackreq
