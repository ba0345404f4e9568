// A method's jmethodID and a jmethodID's Method*, read from HotSpot's classes. JDK 11 to 25 make a
// jmethodID point to a word that holds its Method*; JDK 26 and later make it a number they map to
// the Method* in a table of their own, which nothing published for the serviceability agent
// reaches. On every JDK a class keeps its methods' jmethodIDs in an array indexed by each method's
// idnum: Method::_constMethod -> ConstMethod::_constants and _method_idnum ->
// ConstantPool::_pool_holder (the InstanceKlass) -> InstanceKlass::_methods_jmethod_ids, word 0
// the array's length, word idnum + 1 the jmethodID (null until one is made). Offsets from
// gHotSpotVMStructs (vm_structs.h). Normal context; every read goes through the kernel
// (safe_read.h): a class may be unloaded while it is read.
#pragma once

#include <jni.h>

#include <cstdint>
#include <string>
#include <vector>

namespace stackreq {

class VmStructs;

struct MethodIdLayout {
    uint64_t const_method = 0;  // Method::_constMethod
    uint64_t constants = 0;     // ConstMethod::_constants
    uint64_t idnum = 0;         // ConstMethod::_method_idnum (u2)
    uint64_t pool_holder = 0;   // ConstantPool::_pool_holder
    uint64_t method_ids = 0;    // InstanceKlass::_methods_jmethod_ids
    uint64_t methods = 0;       // InstanceKlass::_methods, an Array<Method*>*
    uint64_t array_length = 0;  // Array<T>::_length (int)
    uint64_t array_data = 0;    // Array<Method*>::_data
    uint64_t mirror_klass = 0;  // java_lang_Class::_klass_offset: the word of a mirror naming its class
};

// Learns the layout; false, *error naming what gHotSpotVMStructs lacks, when it does not say.
bool read_method_id_layout(const VmStructs& vm, MethodIdLayout* out, std::string* error);
// The jmethodID method's class keeps for it; false when a read fails or there is none.
bool jmethod_id_of(const MethodIdLayout& layout, uintptr_t method, jmethodID* out);
// The InstanceKlass a java.lang.Class names, klass being a JNI local reference (a pointer to the
// slot that holds the mirror; a collector that colours its pointers makes it unreadable, and the
// caller checks the answer: with method_of, or against the class's own jmethodIDs). False when a
// read fails.
bool instance_klass_of(const MethodIdLayout& layout, jclass klass, uintptr_t* out);
struct MethodAndId {
    uintptr_t method;
    jmethodID id;
};
// Each of instance_klass's methods that has a jmethodID, with it, appended to *out: what
// jmethod_id_of gives for each, in a few reads for the whole class (its methods share the class's
// array). False when the class's arrays cannot be read.
bool methods_with_ids(const MethodIdLayout& layout, uintptr_t instance_klass, std::vector<MethodAndId>* out);
// The Method* among instance_klass's methods whose jmethodID is id; false when none is.
bool method_of(const MethodIdLayout& layout, uintptr_t instance_klass, jmethodID id, uintptr_t* out);

}  // namespace stackreq
