#include "hotspot/method_ids.h"

#include "hotspot/vm_structs.h"
#include "native_unwind/safe_read.h"

namespace stackreq {

namespace {

// A class with more methods than this is not a class (an array read from a wrong place).
constexpr uintptr_t kMaxMethods = 1 << 16;
// A JNI handle's low bits tag its kind (JDK 17 and later: weak global 1, global 2).
constexpr uintptr_t kHandleTagBits = 3;

// The Method*s of instance_klass (its _methods array) into *out; false when a read fails.
bool methods_of(const MethodIdLayout& layout, uintptr_t instance_klass, std::vector<uintptr_t>* out) {
    uintptr_t methods = 0;
    int32_t length = 0;
    if (!read_at(instance_klass + layout.methods, &methods) || methods == 0 ||
        !read_at(methods + layout.array_length, &length) || length <= 0 ||
        static_cast<uintptr_t>(length) > kMaxMethods) {
        return false;
    }
    out->resize(static_cast<size_t>(length));
    return safe_read(methods + layout.array_data, out->data(), out->size() * sizeof(uintptr_t));
}

}  // namespace

bool read_method_id_layout(const VmStructs& vm, MethodIdLayout* out, std::string* error) {
    uintptr_t mirror_klass = 0;
    int32_t mirror_klass_offset = 0;
    if (!vm.field_offset("Method", "_constMethod", &out->const_method) ||
        !vm.field_offset("ConstMethod", "_constants", &out->constants) ||
        !vm.field_offset("ConstMethod", "_method_idnum", &out->idnum) ||
        !vm.field_offset("ConstantPool", "_pool_holder", &out->pool_holder) ||
        !vm.field_offset("InstanceKlass", "_methods_jmethod_ids", &out->method_ids) ||
        !vm.field_offset("InstanceKlass", "_methods", &out->methods) ||
        !vm.field_offset("Array<Klass*>", "_length", &out->array_length) ||
        !vm.field_offset("Array<Method*>", "_data", &out->array_data) ||
        !vm.static_address("java_lang_Class", "_klass_offset", &mirror_klass) ||
        !read_at(mirror_klass, &mirror_klass_offset) || mirror_klass_offset <= 0) {
        *error = "gHotSpotVMStructs does not say where a class keeps its methods and their jmethodIDs";
        return false;
    }
    out->mirror_klass = static_cast<uint64_t>(mirror_klass_offset);
    return true;
}

bool jmethod_id_of(const MethodIdLayout& layout, uintptr_t method, jmethodID* out) {
    uintptr_t const_method = 0, constants = 0, holder = 0, ids = 0, length = 0;
    uint16_t idnum = 0;
    jmethodID id = nullptr;
    if (!read_at(method + layout.const_method, &const_method) || const_method == 0 ||
        !read_at(const_method + layout.constants, &constants) || constants == 0 ||
        !read_at(const_method + layout.idnum, &idnum) || !read_at(constants + layout.pool_holder, &holder) ||
        holder == 0 || !read_at(holder + layout.method_ids, &ids) || ids == 0 || !read_at(ids, &length) ||
        idnum >= length || length > kMaxMethods ||
        !read_at(ids + (static_cast<uintptr_t>(idnum) + 1) * sizeof(jmethodID), &id) || id == nullptr) {
        return false;
    }
    *out = id;
    return true;
}

bool instance_klass_of(const MethodIdLayout& layout, jclass klass, uintptr_t* out) {
    uintptr_t mirror = 0;
    return read_at(reinterpret_cast<uintptr_t>(klass) & ~kHandleTagBits, &mirror) && mirror != 0 &&
           read_at(mirror + layout.mirror_klass, out) && *out != 0;
}

bool methods_with_ids(const MethodIdLayout& layout, uintptr_t instance_klass, std::vector<MethodAndId>* out) {
    std::vector<uintptr_t> methods;
    uintptr_t ids = 0, length = 0;
    if (!methods_of(layout, instance_klass, &methods) || !read_at(instance_klass + layout.method_ids, &ids) ||
        ids == 0 || !read_at(ids, &length) || length == 0 || length > kMaxMethods) {
        return false;
    }
    std::vector<jmethodID> by_idnum(length);
    if (!safe_read(ids + sizeof(jmethodID), by_idnum.data(), length * sizeof(jmethodID))) return false;
    std::vector<uintptr_t> addresses(methods.size()), const_methods(methods.size());
    for (size_t i = 0; i < methods.size(); i++) addresses[i] = methods[i] + layout.const_method;
    size_t read = safe_read_each(addresses.data(), methods.size(), const_methods.data(), sizeof(uintptr_t));
    for (size_t i = 0; i < read; i++) addresses[i] = const_methods[i] + layout.idnum;
    std::vector<uint16_t> idnums(read);
    read = safe_read_each(addresses.data(), read, idnums.data(), sizeof(uint16_t));
    for (size_t i = 0; i < read; i++) {
        if (idnums[i] < length && by_idnum[idnums[i]] != nullptr) out->push_back({methods[i], by_idnum[idnums[i]]});
    }
    return true;
}

bool method_of(const MethodIdLayout& layout, uintptr_t instance_klass, jmethodID id, uintptr_t* out) {
    std::vector<uintptr_t> methods;
    if (!methods_of(layout, instance_klass, &methods)) return false;
    for (uintptr_t method : methods) {
        jmethodID found = nullptr;
        if (jmethod_id_of(layout, method, &found) && found == id) {
            *out = method;
            return true;
        }
    }
    return false;
}

}  // namespace stackreq
