#include "stack_walker.h"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>

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

// glibc's signal-return trampoline: the return address of every handler frame the kernel
// builds for a handler installed through glibc's sigaction.
uintptr_t g_signal_restorer = 0;

// Executable segments of the libraries loaded at startup (libjvm, libc, ...). A PC there is
// never a code-cache stub, so stub recovery must not run for it.
struct CodeRange {
    uintptr_t start;
    uintptr_t end;
};
constexpr int kMaxCodeRanges = 512;
CodeRange g_library_code[kMaxCodeRanges];
int g_library_code_count = 0;

int collect_library_code(dl_phdr_info* info, size_t, void*) {
    for (int i = 0; i < info->dlpi_phnum && g_library_code_count < kMaxCodeRanges; i++) {
        const ElfW(Phdr)& header = info->dlpi_phdr[i];
        if (header.p_type != PT_LOAD || (header.p_flags & PF_X) == 0) continue;
        uintptr_t start = info->dlpi_addr + header.p_vaddr;
        g_library_code[g_library_code_count++] = CodeRange{start, start + header.p_memsz};
    }
    return 0;
}

bool in_library_code(uintptr_t pc) {
    for (int i = 0; i < g_library_code_count; i++) {
        if (pc >= g_library_code[i].start && pc < g_library_code[i].end) return true;
    }
    return false;
}

// Installs a throw-away handler on an unused real-time signal to learn glibc's restorer, then
// puts the previous action back. Runs once, at agent load, before any other thread exists.
uintptr_t find_signal_restorer() {
    struct sigaction probe {}, previous {}, installed {};
    probe.sa_handler = SIG_IGN;
    int signal_number = SIGRTMAX;
    if (sigaction(signal_number, &probe, &previous) != 0) return 0;
    probe.sa_handler = [](int) {};
    sigaction(signal_number, &probe, nullptr);
    sigaction(signal_number, &previous, &installed);
    return reinterpret_cast<uintptr_t>(installed.sa_restorer);
}

int32_t walk_once(JNIEnv* jni, void* ucontext, CallFrame* frames, uint32_t max_depth) {
    CallTrace trace{jni, 0, frames};
    g_async_get_call_trace(&trace, static_cast<jint>(max_depth), ucontext);
    return trace.num_frames;
}

constexpr uintptr_t kMaxStubFrameBytes = 512;

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

    // The stub built a frame (push rbp; mov rbp, rsp): caller's pc at fp+8, sp = fp+16. Stub
    // frames are small; an fp far above sp is a stale frame pointer left by compiled code (C2
    // does not keep rbp as one), and walking from it would silently skip frames.
    if (at_signal.fp >= at_signal.sp && at_signal.fp - at_signal.sp <= kMaxStubFrameBytes &&
        on_stack(thread, at_signal.fp, 2 * sizeof(uintptr_t))) {
        const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(at_signal.fp);
        // pc - 1: inside the call instruction, so the caller's line is the call's, not the next.
        write_registers(copy, Registers{frame[1] - 1, at_signal.fp + 2 * sizeof(uintptr_t), frame[0]});
        result = walk_once(thread.jni, copy, frames, max_depth);
        if (result > 0) return result;
    }
    // The signal hit before the stub's prologue: the return address is at sp.
    if (on_stack(thread, at_signal.sp, sizeof(uintptr_t))) {
        const uintptr_t* top = reinterpret_cast<const uintptr_t*>(at_signal.sp);
        write_registers(copy, Registers{top[0] - 1, at_signal.sp + sizeof(uintptr_t), at_signal.fp});
        result = walk_once(thread.jni, copy, frames, max_depth);
    }
    return result;
}

// When two signals are delivered at once, the kernel stacks both handler frames and ours runs
// at the first instruction of the other handler: the Java context is then the ucontext the
// kernel saved just above the return address (rt_sigframe: pretcode, then the ucontext).
void* interrupted_context(const ThreadSlotView& thread, void* ucontext) {
    for (int nesting = 0; nesting < 4 && g_signal_restorer != 0; nesting++) {
        Registers registers = read_registers(ucontext);
        if (!on_stack(thread, registers.sp, sizeof(uintptr_t) + kUcontextSize)) break;
        if (*reinterpret_cast<const uintptr_t*>(registers.sp) != g_signal_restorer) break;
        ucontext = reinterpret_cast<void*>(registers.sp + sizeof(uintptr_t));
    }
    return ucontext;
}

}  // namespace

bool StackWalker::init() {
    void* symbol = dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    if (symbol == nullptr) {
        void* libjvm = dlopen("libjvm.so", RTLD_NOW | RTLD_NOLOAD);
        if (libjvm != nullptr) symbol = dlsym(libjvm, "AsyncGetCallTrace");
    }
    g_async_get_call_trace = reinterpret_cast<AsyncGetCallTraceFunction>(symbol);
    g_signal_restorer = find_signal_restorer();
    g_library_code_count = 0;
    dl_iterate_phdr(collect_library_code, nullptr);
    return g_async_get_call_trace != nullptr;
}

bool StackWalker::available() { return g_async_get_call_trace != nullptr; }

int32_t StackWalker::walk(const ThreadSlotView& thread, void* ucontext, CallFrame* frames,
                          uint32_t max_depth, bool* recovered) {
    *recovered = false;
    if (g_async_get_call_trace == nullptr) return kWalkUnavailable;
    if (thread.stack_high != 0) {
        ucontext = interrupted_context(thread, ucontext);
        // A real signal context has SP inside the thread's stack. AsyncGetCallTrace does not
        // check it before reading relative to it (deopt handler PCs), so refuse the walk here.
        uintptr_t sp = read_registers(ucontext).sp;
        if (sp < thread.stack_low || sp >= thread.stack_high) return kWalkBadContext;
    }
    int32_t result = walk_once(thread.jni, ucontext, frames, max_depth);
    if (!failed_in_java_code(result) || thread.stack_high == 0) return result;
    // A failure with the PC in libjvm (e.g. inside another signal handler) is no stub frame.
    if (in_library_code(read_registers(ucontext).pc)) return result;
    int32_t retried = walk_from_caller(thread, ucontext, frames, max_depth);
    if (retried > 0) {
        *recovered = true;
        return retried;
    }
    return result;
}

}  // namespace stackreq
