// What the JVM says about the code a walk's physical frames were in, for the frame types:
// the interpreter's code range (DynamicCodeGenerated "Interpreter") and, for every compiled
// method (CompiledMethodLoad/Unload), each recorded PC's inline chain (JVMTI inline records:
// the scopes the JIT attributes to that PC, innermost first). Filled by the JVMTI callbacks,
// read by the emitter; normal context only (one mutex).
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "request/request_ring.h"

namespace stackreq {

class CompiledMethods {
public:
    // native: the code is a native method's wrapper.
    void on_load(jmethodID method, uintptr_t start, uint32_t size, const void* compile_info, bool native = false);
    void on_unload(uintptr_t start);
    void on_generated(const char* name, uintptr_t start, uintptr_t size);

    // Types the frames (top first) of the physical frame AsyncGetCallTrace walked from pc:
    // Interpreted when pc is in the interpreter; when pc is in a compiled method, by the inline
    // chain of the first record strictly after pc (the one AsyncGetCallTrace takes) when the
    // top frames are exactly that chain, else by another chain of the method that is exactly
    // them: that chain's frames Inlined and its last one JIT compiled. Frames it cannot type
    // keep their type. Returns how many frames it typed.
    int32_t type_top_frames(uintptr_t pc, CallFrame* frames, int32_t count) const;

    // Types the frames (top first) of a physical frame below the top one, whose return address
    // is pc. Interpreted, a frame of a native method Native, when pc is in the interpreter (a
    // return address there is an interpreted frame's); when pc is in a compiled method, by the
    // chain recorded at pc itself (a call's return address has a record of its own, the one
    // AsyncGetCallTrace takes) when the frames are exactly that chain; the native method's frame
    // Native when the method is the wrapper of that native method. Returns how many frames it
    // typed, 0 when the frames do not match what the JVM recorded there.
    int32_t type_caller_frames(uintptr_t pc, CallFrame* frames, int32_t count) const;
    // Whether pc is in code the VM generated other than the interpreter (stubs, adapters).
    bool in_vm_code(uintptr_t pc) const;
    // walker=vmstructs: appends to out the Java frames (top first) of the compiled frame at pc, a
    // call's return address or the top frame's PC: the chain of the first record at or after pc,
    // its frames Inlined and its last one JIT compiled (for a return address that record is the
    // call's own; for the signal's PC it is the instruction's, which AsyncGetCallTrace's walk
    // from pc - 1 takes too); a native method's wrapper as that method's Native frame. unbuilt:
    // the top frame is in the method's prologue or epilogue: the method alone, JIT compiled, at
    // bci 0. Returns how many frames it appended, -1 when pc is in no compiled method known.
    int32_t append_frames_at(uintptr_t pc, bool unbuilt, std::vector<CallFrame>* out) const;
    // Whether pc is in code the JVM has reported: a compiled method, the interpreter, VM code.
    bool knows(uintptr_t pc) const;
    // Whether pc is in a compiled method (or a native method's wrapper); *id receives its method.
    bool compiled_method_at(uintptr_t pc, jmethodID* id) const;

    // Exposed for tests: the hash type_top_frames compares a chain with the walked frames by.
    static uint64_t chain_hash(const jmethodID* methods, const jint* bcis, int32_t depth);

private:
    struct Chain {
        uint32_t offset;  // of the recorded PC from the method's start
        uint32_t depth;   // inlined scopes + 1
        uint64_t hash;    // chain_hash of its (method, bci) pairs
        uint32_t first;   // index of its innermost frame in Method::frames
    };
    struct Method {
        jmethodID id;
        uintptr_t start;
        uint32_t size;
        bool native;
        std::vector<Chain> chains;  // by offset
        std::vector<CallFrame> frames;  // the chains' (method, bci) pairs, innermost first
    };
    // chain_hash of the walk's top 1, 2, ... frames, for comparing them with many chains.
    class TopHashes {
    public:
        TopHashes(const CallFrame* frames, int32_t count);
        bool matches(const Chain& chain) const;

    private:
        // Chains deeper than this (far beyond HotSpot's inlining limits) are not typed.
        static constexpr int32_t kMaxDepth = 64;
        uint64_t hashes_[kMaxDepth];
        int32_t depth_;
    };

    // The method whose code holds pc, or null; mutex_ held.
    const Method* method_at(uintptr_t pc) const;
    bool in_vm_code_locked(uintptr_t pc) const;
    // Types frames as chain's: Inlined, then JIT compiled. Returns its depth.
    static int32_t type_chain(const Chain& chain, CallFrame* frames);

    mutable std::mutex mutex_;
    std::map<uintptr_t, Method> methods_;  // by start
    std::map<uintptr_t, uintptr_t> vm_code_;  // start -> end, other than the interpreter
    uintptr_t interpreter_start_ = 0;
    uintptr_t interpreter_end_ = 0;
};

}  // namespace stackreq
