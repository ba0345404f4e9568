// The field offsets, static field addresses and type sizes HotSpot publishes for its
// serviceability agent (the gHotSpotVMStructs and gHotSpotVMTypes tables of libjvm). stackreq
// reads a few JVM structures with them (hotspot_threads.h, code_heaps.h). Normal context only.
#pragma once

#include <cstdint>

namespace stackreq {

class VmStructs {
public:
    // Finds the tables in the loaded libjvm; false when this JVM does not publish them.
    bool init();
    // Offset of a non-static field declared by exactly that type.
    bool field_offset(const char* type, const char* field, uint64_t* out) const;
    // Address of a static field.
    bool static_address(const char* type, const char* field, uintptr_t* out) const;
    // Address of the first static field of type whose name contains fragment (an array element
    // such as vmClasses::_klasses[static_cast<int>(vmClassID::Object_klass_knum)], spelled
    // differently from one JDK to the next).
    bool static_address_containing(const char* type, const char* fragment, uintptr_t* out) const;
    bool type_size(const char* type, uint64_t* out) const;
    // An integer constant of gHotSpotVMIntConstants (an enum value such as _thread_in_Java).
    bool int_constant(const char* name, int32_t* out) const;

private:
    const char* find_field(const char* type, const char* field) const;

    const char* fields_ = nullptr;
    uint64_t field_stride_ = 0, field_type_name_ = 0, field_name_ = 0, field_is_static_ = 0, field_offset_ = 0,
             field_address_ = 0;
    const char* types_ = nullptr;
    uint64_t type_stride_ = 0, type_name_ = 0, type_size_ = 0;
    const char* int_constants_ = nullptr;
    uint64_t int_constant_stride_ = 0, int_constant_name_ = 0, int_constant_value_ = 0;
};

}  // namespace stackreq
