// walker=vmstructs: the jmethodID of each Method* a VMStructs walk records (vmstructs_walk.h), and the
// bytecode index of an interpreted frame's bytecode pointer. HotSpot's jmethodID (JDK 17 and
// 25) points to a word that holds the method's Method* while its class is loaded; the table is
// filled as classes are prepared (every method gets its jmethodID then, agent_main.cpp), and an
// entry counts only while its jmethodID still holds that Method*. The bytecodes follow a
// method's ConstMethod (gHotSpotVMStructs gives where). Normal context only (one mutex).
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace stackreq {

// A bytecode pointer for MethodTable::resolve that means the method's first bytecode (a method the
// interpreter is entering); no real one is this small.
constexpr uintptr_t kEntryBcp = 1;

class MethodTable {
public:
    // Normal context, at VMInit: learns Method's and ConstMethod's layout. Returns false and sets
    // *error when this JVM does not publish it, or its jmethodIDs do not hold Method* (checked on
    // the methods already added).
    bool init(std::string* error);
    bool ready() const { return ready_; }
    // Normal context: remembers the Method* of each method.
    void add(const jmethodID* methods, int32_t count);
    // The jmethodID of method and the bytecode index of bcp in it; a native method (no bytecodes)
    // has *bci = -1 whatever bcp is; bcp kEntryBcp gives bci 0. False when the method is not known
    // or bcp is not in its bytecodes. A known method whose class has been unloaded since gives
    // true with *id = nullptr (an unknown frame) and *bci = 0. *known says whether it was found.
    bool resolve(uintptr_t method, uintptr_t bcp, jmethodID* id, int32_t* bci, bool* known) const;
    // Whether id holds method now (false for an unloaded method's).
    static bool holds(jmethodID id, uintptr_t method);

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
    mutable std::mutex mutex_;
    mutable std::unordered_map<uintptr_t, Entry> methods_;
    bool ready_ = false;
    uint64_t const_method_ = 0;       // Method::_constMethod
    uint64_t code_size_ = 0;          // ConstMethod::_code_size (u2)
    uint64_t const_method_size_ = 0;  // sizeof(ConstMethod): its bytecodes follow it
};

}  // namespace stackreq
