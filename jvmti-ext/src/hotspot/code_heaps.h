// The frame size of the JVM code blob (compiled method, native-method wrapper, stub) that holds
// a PC, read in a signal handler from HotSpot's own code heaps, for the physical walk
// (physical_walk.h). The code heaps' objects, which live as long as the JVM, are found once at
// VM start through gHotSpotVMStructs (vm_structs.h); a lookup then reads only memory the JVM has
// committed to a code heap and never gives back: the heap's bounds and its segment map from the
// heap object, then the blob's header, each read checked to lie within the heap's committed
// range read just before. A blob freed or reused while the handler reads it can give a wrong
// answer, never a fault; the emitter accepts a walked frame only when the JIT's records confirm
// it (frame_typer.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace stackreq {

class CodeHeaps {
public:
    // Normal context, once the JVM has created its code cache (VMInit or the attach). Returns
    // false and sets *error naming what this JVM does not publish; lookups then find nothing.
    static bool init(std::string* error);
    // Async-signal-safe. The frame size in words (return address and saved frame pointer
    // included) of the used blob whose code holds pc; 0 when none is known.
    static uint32_t frame_words_at(uintptr_t pc);
    // Async-signal-safe. frame_words_at, and in *method the word where a compiled method's blob
    // keeps its Method* (CompiledMethod::_method, JDK 25 nmethod::_method); for another blob
    // that word means nothing, and 0 when this JVM does not say where it is.
    // *before_entry (when not null): the blob is a compiled method and pc lies before its
    // verified entry (the inline-cache check, before the frame is set up). *frameless (when not
    // null): a blob holds pc and its frame size is 0 (a method handle intrinsic's code, which
    // pushes nothing); the result is then 0.
    static uint32_t frame_words_and_method_at(uintptr_t pc, uintptr_t* method, bool* before_entry = nullptr,
                                              bool* frameless = nullptr);
    static void reset_for_test();
};

}  // namespace stackreq
