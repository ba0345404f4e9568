#include "hotspot/vm_structs.h"

#include <dlfcn.h>

#include <cstring>

namespace stackreq {

namespace {

const void* jvm_symbol(const char* name) {
    void* symbol = dlsym(RTLD_DEFAULT, name);
    if (symbol == nullptr) {
        void* libjvm = dlopen("libjvm.so", RTLD_NOW | RTLD_NOLOAD);
        if (libjvm != nullptr) symbol = dlsym(libjvm, name);
    }
    return symbol;
}

// The value of a libjvm variable of type T, or false when libjvm has no such symbol.
template <typename T>
bool jvm_variable(const char* name, T* out) {
    const void* symbol = jvm_symbol(name);
    if (symbol == nullptr) return false;
    *out = *static_cast<const T*>(symbol);
    return true;
}

template <typename T>
T at(const char* entry, uint64_t offset) {
    T value;
    std::memcpy(&value, entry + offset, sizeof(T));
    return value;
}

}  // namespace

bool VmStructs::init() {
    bool found = jvm_variable("gHotSpotVMStructs", &fields_) &&
                 jvm_variable("gHotSpotVMStructEntryArrayStride", &field_stride_) &&
                 jvm_variable("gHotSpotVMStructEntryTypeNameOffset", &field_type_name_) &&
                 jvm_variable("gHotSpotVMStructEntryFieldNameOffset", &field_name_) &&
                 jvm_variable("gHotSpotVMStructEntryIsStaticOffset", &field_is_static_) &&
                 jvm_variable("gHotSpotVMStructEntryOffsetOffset", &field_offset_) &&
                 jvm_variable("gHotSpotVMStructEntryAddressOffset", &field_address_) &&
                 jvm_variable("gHotSpotVMTypes", &types_) &&
                 jvm_variable("gHotSpotVMTypeEntryArrayStride", &type_stride_) &&
                 jvm_variable("gHotSpotVMTypeEntryTypeNameOffset", &type_name_) &&
                 jvm_variable("gHotSpotVMTypeEntrySizeOffset", &type_size_);
    if (!jvm_variable("gHotSpotVMIntConstants", &int_constants_) ||
        !jvm_variable("gHotSpotVMIntConstantEntryArrayStride", &int_constant_stride_) ||
        !jvm_variable("gHotSpotVMIntConstantEntryNameOffset", &int_constant_name_) ||
        !jvm_variable("gHotSpotVMIntConstantEntryValueOffset", &int_constant_value_)) {
        int_constants_ = nullptr;
    }
    return found && fields_ != nullptr && types_ != nullptr;
}

// Both tables end with an entry whose type name is null.
const char* VmStructs::find_field(const char* type, const char* field) const {
    for (const char* entry = fields_;; entry += field_stride_) {
        const char* entry_type = at<const char*>(entry, field_type_name_);
        if (entry_type == nullptr) return nullptr;
        const char* entry_field = at<const char*>(entry, field_name_);
        if (entry_field != nullptr && std::strcmp(entry_type, type) == 0 && std::strcmp(entry_field, field) == 0) {
            return entry;
        }
    }
}

bool VmStructs::field_offset(const char* type, const char* field, uint64_t* out) const {
    const char* entry = find_field(type, field);
    if (entry == nullptr || at<int32_t>(entry, field_is_static_) != 0) return false;
    *out = at<uint64_t>(entry, field_offset_);
    return true;
}

bool VmStructs::static_address(const char* type, const char* field, uintptr_t* out) const {
    const char* entry = find_field(type, field);
    if (entry == nullptr || at<int32_t>(entry, field_is_static_) == 0) return false;
    *out = reinterpret_cast<uintptr_t>(at<const void*>(entry, field_address_));
    return *out != 0;
}

bool VmStructs::static_address_containing(const char* type, const char* fragment, uintptr_t* out) const {
    for (const char* entry = fields_;; entry += field_stride_) {
        const char* entry_type = at<const char*>(entry, field_type_name_);
        if (entry_type == nullptr) return false;
        const char* entry_field = at<const char*>(entry, field_name_);
        if (entry_field != nullptr && at<int32_t>(entry, field_is_static_) != 0 && std::strcmp(entry_type, type) == 0 &&
            std::strstr(entry_field, fragment) != nullptr) {
            *out = reinterpret_cast<uintptr_t>(at<const void*>(entry, field_address_));
            return *out != 0;
        }
    }
}

bool VmStructs::type_size(const char* type, uint64_t* out) const {
    for (const char* entry = types_;; entry += type_stride_) {
        const char* name = at<const char*>(entry, type_name_);
        if (name == nullptr) return false;
        if (std::strcmp(name, type) == 0) {
            *out = at<uint64_t>(entry, type_size_);
            return true;
        }
    }
}

bool VmStructs::int_constant(const char* name, int32_t* out) const {
    if (int_constants_ == nullptr) return false;
    for (const char* entry = int_constants_;; entry += int_constant_stride_) {
        const char* entry_name = at<const char*>(entry, int_constant_name_);
        if (entry_name == nullptr) return false;
        if (std::strcmp(entry_name, name) == 0) {
            *out = at<int32_t>(entry, int_constant_value_);
            return true;
        }
    }
}

}  // namespace stackreq
