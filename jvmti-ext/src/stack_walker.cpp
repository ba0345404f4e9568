#include "stack_walker.h"

#include <dlfcn.h>

#include <cstring>

#include "arch.h"

namespace stackreq {

namespace {

struct CallTrace {
    JNIEnv* env_id;
    jint num_frames;
    CallFrame* frames;
};

using AsyncGetCallTraceFunction = void (*)(CallTrace*, jint, void*);
AsyncGetCallTraceFunction g_async_get_call_trace = nullptr;

int32_t walk_once(JNIEnv* jni, void* ucontext, CallFrame* frames, uint32_t max_depth) {
    CallTrace trace{jni, 0, frames};
    g_async_get_call_trace(&trace, static_cast<jint>(max_depth), ucontext);
    return trace.num_frames;
}

bool failed_in_java_code(int32_t result) {
    return result == kWalkUnknownJava || result == kWalkNotWalkableJava;
}

bool on_stack(const ThreadSlotView& thread, uintptr_t address, uintptr_t bytes) {
    return address % sizeof(uintptr_t) == 0 && address >= thread.stack_low &&
           address + bytes <= thread.stack_high && address + bytes > address;
}

// Retries the walk from a copy of ucontext whose registers describe the caller of the stub.
// Both reads are within the thread's own stack mapping, so they cannot fault.
int32_t walk_from_caller(const ThreadSlotView& thread, void* ucontext, CallFrame* frames,
                         uint32_t max_depth) {
    alignas(16) char copy[kUcontextSize];
    std::memcpy(copy, ucontext, kUcontextSize);
    Registers at_signal = read_registers(ucontext);
    int32_t result = kWalkUnknownJava;

    // The stub built a frame (push rbp; mov rbp, rsp): caller's pc at fp+8, sp = fp+16.
    if (at_signal.fp >= at_signal.sp && on_stack(thread, at_signal.fp, 2 * sizeof(uintptr_t))) {
        const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(at_signal.fp);
        write_registers(copy, Registers{frame[1], at_signal.fp + 2 * sizeof(uintptr_t), frame[0]});
        result = walk_once(thread.jni, copy, frames, max_depth);
        if (result > 0) return result;
    }
    // The signal hit before the stub's prologue: the return address is at sp.
    if (on_stack(thread, at_signal.sp, sizeof(uintptr_t))) {
        const uintptr_t* top = reinterpret_cast<const uintptr_t*>(at_signal.sp);
        write_registers(copy, Registers{top[0], at_signal.sp + sizeof(uintptr_t), at_signal.fp});
        result = walk_once(thread.jni, copy, frames, max_depth);
    }
    return result;
}

}  // namespace

bool StackWalker::init() {
    void* symbol = dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    if (symbol == nullptr) {
        void* libjvm = dlopen("libjvm.so", RTLD_NOW | RTLD_NOLOAD);
        if (libjvm != nullptr) symbol = dlsym(libjvm, "AsyncGetCallTrace");
    }
    g_async_get_call_trace = reinterpret_cast<AsyncGetCallTraceFunction>(symbol);
    return g_async_get_call_trace != nullptr;
}

bool StackWalker::available() { return g_async_get_call_trace != nullptr; }

int32_t StackWalker::walk(const ThreadSlotView& thread, void* ucontext, CallFrame* frames,
                          uint32_t max_depth, bool* recovered) {
    *recovered = false;
    if (g_async_get_call_trace == nullptr) return kWalkUnavailable;
    int32_t result = walk_once(thread.jni, ucontext, frames, max_depth);
    if (!failed_in_java_code(result) || thread.stack_high == 0) return result;
    int32_t retried = walk_from_caller(thread, ucontext, frames, max_depth);
    if (retried > 0) {
        *recovered = true;
        return retried;
    }
    return result;
}

}  // namespace stackreq
