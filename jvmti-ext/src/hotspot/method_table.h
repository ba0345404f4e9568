// walker=vmstructs: the jmethodID of each Method* a VMStructs walk records (vmstructs_walk.h), and the
// bytecode index of an interpreted frame's bytecode pointer. A JVM's jmethodIDs take one of two
// forms, told apart at VMInit:
// - JDK 11 to 25: a jmethodID points to a word that holds the method's Method* while its class
//   is loaded (cleared when it is unloaded). The table is filled as classes are prepared (every
//   method gets its jmethodID then, agent_main.cpp), and an entry counts only while its
//   jmethodID still holds that Method*.
// - JDK 26 and later: a jmethodID is a number the JVM maps to its Method* itself. The methods of
//   a class prepared after VMInit are found in it then (hotspot/method_ids.h), while it is surely
//   loaded: a walk may record a frame of a class that is unloaded before the emitter sees it. A
//   Method* not known that way (its class prepared before VMInit) is looked up in its class
//   (through the kernel: the class may have been unloaded since the walk) the first time it is
//   seen. A remembered one counts while the JVM still knows its jmethodID (an unloaded class's
//   are forgotten, JVMTI then answering JVMTI_ERROR_INVALID_METHODID), and is looked up again
//   when not (its Method* may be another method's by then).
// The bytecodes follow a method's ConstMethod (gHotSpotVMStructs gives where). Normal context
// only (one mutex).
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "hotspot/method_ids.h"

namespace stackreq {

// A bytecode pointer for MethodTable::resolve that means the method's first bytecode (a method the
// interpreter is entering); no real one is this small.
constexpr uintptr_t kEntryBcp = 1;

class MethodTable {
public:
    // How this JVM's jmethodIDs lead to their Method* (see above). Before init: kWordHoldsMethod.
    enum class IdForm : uint8_t { kWordHoldsMethod, kNumberInJvmTable };

    // Normal context, at VMInit or the attach, after the classes loaded so far were added: learns
    // Method's and ConstMethod's layout and the form of the jmethodIDs. Returns false and sets
    // *error when this JVM does not publish the layout, or its jmethodIDs are in neither form
    // (checked on the methods already added, and on java.lang.Object's for the second form).
    bool init(jvmtiEnv* jvmti, JNIEnv* jni, std::string* error);
    bool ready() const { return ready_; }
    IdForm id_form() const { return form_; }
    // Normal context: remembers the methods of a class being prepared (klass: a JNI reference to
    // it; methods: its jmethodIDs).
    void add(jclass klass, const jmethodID* methods, int32_t count);
    // The jmethodID of method and the bytecode index of bcp in it; a native method (no bytecodes)
    // has *bci = -1 whatever bcp is; bcp kEntryBcp gives bci 0. False when the method is not known
    // or bcp is not in its bytecodes. A known method whose class has been unloaded since gives
    // true with *id = nullptr (an unknown frame) and *bci = 0. *known says whether it was found.
    bool resolve(uintptr_t method, uintptr_t bcp, jmethodID* id, int32_t* bci, bool* known) const;
    // Whether id is method's jmethodID now (false for an unloaded method's).
    bool holds(jmethodID id, uintptr_t method) const;

    // Where a method's bytecodes are and where its class keeps its methods' jmethodIDs
    // (gHotSpotVMStructs).
    struct Layout {
        MethodIdLayout ids;              // its const_method is Method::_constMethod
        uint64_t code_size = 0;          // ConstMethod::_code_size (u2)
        uint64_t const_method_size = 0;  // sizeof(ConstMethod): its bytecodes follow it
    };
    // For tests: the second form with this layout, ids_valid standing in for the JVM's answer.
    void use_number_form_for_test(const Layout& layout, bool (*ids_valid)(jmethodID));

private:
    // A known method: its jmethodID and, once read (two reads through the kernel, the emitter's
    // main cost per interpreted frame when read for each), where its bytecodes are; read again
    // when the Method* is seen unloaded or is added again for another method. One map for both:
    // the emitter looks each interpreted frame up once, in a table that is cold at each wake-up.
    struct Entry {
        jmethodID id;
        uintptr_t const_method;  // 0 until read
        uint16_t code_size;
    };
    bool init_layout(std::string* error);
    // Second form, after init: the Method* of each of methods, found in klass. Caller holds mutex_.
    void add_through_class(jclass klass, const jmethodID* methods, int32_t count);
    bool check_word_form(std::string* error);
    bool check_number_form(jvmtiEnv* jvmti, JNIEnv* jni, std::string* error);
    // The entry of method, looked up in the JVM's class (second form) when not known or no longer
    // valid; null when neither. *unloaded: a known method whose class has been unloaded. Caller
    // holds mutex_.
    Entry* entry_of(uintptr_t method, bool* unloaded) const;
    bool id_valid(jmethodID id) const;

    mutable std::mutex mutex_;
    mutable std::unordered_map<uintptr_t, Entry> methods_;
    // Second form: every jmethodID added (the class-side lookup must land on one of them).
    std::unordered_set<jmethodID> ids_;
    IdForm form_ = IdForm::kWordHoldsMethod;
    bool ready_ = false;
    jvmtiEnv* jvmti_ = nullptr;
    bool (*ids_valid_for_test_)(jmethodID) = nullptr;
    Layout layout_;
};

}  // namespace stackreq
