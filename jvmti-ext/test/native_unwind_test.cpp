// The native unwinder on this process's own stack: two call chains, one built without frame
// pointers (only the .eh_frame rows can unwind it) and one with them; the captured PCs must name
// the chain's functions in order (native_symbols.h), then their callers. Also: the rows of a
// frame-pointer function's entry, a stack that ends early, names for unknown addresses, and a
// signal in a spinning leaf with and without rows. On x86_64 and aarch64: the assembly and what
// a function's entry looks like are native_unwind_test_<cpu>.h's.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "emitter/native_symbols.h"
#include "native_unwind/arch.h"
#include "native_unwind/native_libraries.h"
#include "native_unwind/native_unwind.h"
#include "native_unwind/safe_read.h"

extern "C" volatile int g_leaf_released;
volatile int g_leaf_released = 0;

#if defined(__x86_64__)
#include "native_unwind_test_x86_64.h"
#elif defined(__aarch64__)
#include "native_unwind_test_aarch64.h"
#endif

using namespace stackreq;

namespace {

constexpr uint32_t kMaxFrames = 32;

struct Captured {
    uintptr_t pcs[kMaxFrames];
    uint32_t count = 0;
};

// Whether capture reads the stack through the kernel, as for a thread whose bounds are not known.
bool g_through_kernel = false;

StackBounds own_stack() {
    pthread_attr_t attributes;
    CHECK(pthread_getattr_np(pthread_self(), &attributes) == 0);
    void* address = nullptr;
    size_t size = 0;
    CHECK(pthread_attr_getstack(&attributes, &address, &size) == 0);
    pthread_attr_destroy(&attributes);
    return StackBounds{reinterpret_cast<uintptr_t>(address), reinterpret_cast<uintptr_t>(address) + size,
                       g_through_kernel};
}

volatile int g_sink = 0;

__attribute__((noinline)) void capture(Captured* out) {
    ucontext_t context;
    getcontext(&context);
    out->count = NativeUnwinder::unwind(own_stack(), read_registers(&context), out->pcs, kMaxFrames);
    g_sink = g_sink + 1;
}

#define CHAIN_FUNCTION(name, callee)                          \
    __attribute__((noinline)) int name(Captured* out) {       \
        volatile char scratch[24];                            \
        scratch[0] = static_cast<char>(g_sink);               \
        callee(out);                                          \
        return scratch[0] + g_sink;                           \
    }

#pragma GCC push_options
#pragma GCC optimize("omit-frame-pointer")
CHAIN_FUNCTION(omit_fp_level4, capture)
CHAIN_FUNCTION(omit_fp_level3, omit_fp_level4)
CHAIN_FUNCTION(omit_fp_level2, omit_fp_level3)
CHAIN_FUNCTION(omit_fp_level1, omit_fp_level2)
#pragma GCC pop_options

CHAIN_FUNCTION(fp_level4, capture)
CHAIN_FUNCTION(fp_level3, fp_level4)
CHAIN_FUNCTION(fp_level2, fp_level3)
CHAIN_FUNCTION(fp_level1, fp_level2)

std::string name_of(NativeSymbols& symbols, const Captured& captured, uint32_t index) {
    // A return address names the call's function: look it up one byte back.
    return symbols.name(index == 0 ? captured.pcs[index] : captured.pcs[index] - 1).symbol;
}

// Not inlined into main: the chain's last frame before main is this one.
__attribute__((noinline)) void check_chain(const char* prefix, int (*entry)(Captured*), const char* caller = "main") {
    Captured captured;
    entry(&captured);
    NativeSymbols symbols;
    std::string names;
    for (uint32_t i = 0; i < captured.count; i++) names += name_of(symbols, captured, i) + " ";
    std::fprintf(stderr, "%s chain: %u frames: %s\n", prefix, captured.count, names.c_str());
    CHECK(captured.count >= 6);
    CHECK(name_of(symbols, captured, 0).find("capture") != std::string::npos);
    for (int level = 4; level >= 1; level--) {
        const std::string expected = std::string(prefix) + std::to_string(level);
        CHECK(name_of(symbols, captured, static_cast<uint32_t>(5 - level)).find(expected) != std::string::npos);
    }
    CHECK(name_of(symbols, captured, 5).find("check_chain") != std::string::npos);
    CHECK(name_of(symbols, captured, 6) == caller ||
          name_of(symbols, captured, 6).find(std::string("::") + caller + "(") != std::string::npos);
}

void check_rows_at_function_entry() {
    const uintptr_t entry = reinterpret_cast<uintptr_t>(&fp_level2);
    const CodeRange* range = NativeLibraries::find(entry);
    CHECK(range != nullptr);
    const UnwindRow* row = UnwindTable::find(range->unwind, entry);
    CHECK(row != nullptr && row->rule == CfaRule::kSp && row->cfa_offset == kEntryCfaOffset && row->fp_offset == 0 &&
          row->return_address_offset == kEntryReturnAddressOffset);
    // The page index narrows every lookup to the rows a full binary search finds.
    const UnwindTable::View& table = range->unwind;
    for (size_t i = 0; i + 1 < table.row_count; i++) {
        const uintptr_t address = table.base + table.rows[i].start;
        const UnwindRow* expected = table.rows[i].rule == CfaRule::kNone ? nullptr : &table.rows[i];
        if (table.rows[i + 1].start == table.rows[i].start) continue;
        CHECK(UnwindTable::find(table, address) == expected);
        CHECK(UnwindTable::find(table, table.base + table.rows[i + 1].start - 1) == expected);
    }
}

void check_bounds_end_the_walk() {
    // A stack of zero usable bytes: only the signal PC itself can be recorded.
    ucontext_t context;
    getcontext(&context);
    Registers registers = read_registers(&context);
    uintptr_t pcs[kMaxFrames];
    const StackBounds empty{registers.sp, registers.sp};
    CHECK(NativeUnwinder::unwind(empty, registers, pcs, kMaxFrames) == 0);
    const StackBounds tiny{registers.sp, registers.sp + 8};
    CHECK(NativeUnwinder::unwind(tiny, registers, pcs, kMaxFrames) == 1);
    // An unmapped PC is not native code.
    registers.pc = 16;
    CHECK(NativeUnwinder::unwind(own_stack(), registers, pcs, kMaxFrames) == 0);
}

void check_vdso_names(NativeSymbols& symbols, void* vdso) {
    CHECK(vdso != nullptr);
    const uintptr_t vdso_function = reinterpret_cast<uintptr_t>(dlsym(vdso, "__vdso_clock_gettime"));
    CHECK(vdso_function != 0);
    const NativeFrameName vdso_name = symbols.name(vdso_function);
    std::fprintf(stderr, "vdso: %s %s\n", vdso_name.library.c_str(), vdso_name.symbol.c_str());
    CHECK(vdso_name.library == "linux-vdso.so.1" && vdso_name.symbol.find("clock_gettime") != std::string::npos);
}

void check_names() {
    NativeSymbols symbols;
    // Looked up in libc itself: the sanitizers put interceptors of their own before it.
    void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    CHECK(libc != nullptr);
    const NativeFrameName getpid_name = symbols.name(reinterpret_cast<uintptr_t>(dlsym(libc, "getpid")) + 1);
    CHECK(getpid_name.library == "libc.so.6" && getpid_name.symbol.find("getpid") != std::string::npos);
    const NativeFrameName unknown = symbols.name(16);
    CHECK(unknown.symbol == "[unknown+0x10]");
    // The vdso has no file: its symbols are read from its image in memory. qemu's user-mode
    // emulation of aarch64 (7.2, Debian bookworm's) maps none.
    void* vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (vdso == nullptr && getauxval(AT_SYSINFO_EHDR) == 0) {
        std::fprintf(stderr, "vdso: none mapped (AT_SYSINFO_EHDR 0): its names not checked\n");
    } else {
        check_vdso_names(symbols, vdso);
    }
    NativeSymbols::add_jvm_code("jint_disjoint_arraycopy", 0x1000, 0x100);
    const NativeFrameName stub = symbols.name(0x1010);
    CHECK(stub.library == "jvm-stubs" && stub.symbol == "jint_disjoint_arraycopy");
    // A PC inside this executable's code that no function symbol covers (the ELF header's page is
    // not code, so take one byte before the first function symbol of the segment, if any).
    const CodeRange* range = NativeLibraries::find(reinterpret_cast<uintptr_t>(&fp_level1));
    CHECK(range != nullptr);
    const NativeFrameName start = symbols.name(range->start);
    CHECK(!start.symbol.empty());
}

// A leaf in assembly (native_unwind_test_<cpu>.h) spins until a signal handler, which unwinds
// from the signal's context, lets it return. Without rows (as libjvm's copy routines are) the
// unwinder must find its caller through the return address on top (x86_64) or in lr (aarch64);
// with rows, through them; then go on with the caller's rows.
Captured g_leaf_captured;
StackBounds g_leaf_stack;
uintptr_t g_leaf = 0;

void capture_in_leaf(int, siginfo_t*, void* context) {
    const Registers registers = read_registers(context);
    if (registers.pc < g_leaf || registers.pc >= g_leaf + kLeafBytes) return;  // not in the leaf yet: next signal
    g_leaf_captured.count = NativeUnwinder::unwind(g_leaf_stack, registers, g_leaf_captured.pcs, kMaxFrames);
    g_leaf_released = 1;
}

void (*volatile g_leaf_function)() = nullptr;

#pragma GCC push_options
#pragma GCC optimize("omit-frame-pointer")
__attribute__((noinline)) int calls_the_leaf(Captured*) {
    volatile char scratch[24];
    scratch[0] = 1;
    g_leaf_function();
    return scratch[0] + g_sink;
}
#pragma GCC pop_options
CHAIN_FUNCTION(leaf_level1, calls_the_leaf)

__attribute__((noinline)) void check_leaf(const char* name, void (*leaf)(), bool with_rows) {
#if defined(__SANITIZE_THREAD__)
    // ThreadSanitizer delivers a signal only at the next call it intercepts, never in a spinning leaf.
    return;
#endif
    g_leaf = reinterpret_cast<uintptr_t>(leaf);
    g_leaf_function = leaf;
    g_leaf_released = 0;
    g_leaf_captured.count = 0;
    const CodeRange* range = NativeLibraries::find(g_leaf);
    CHECK(range != nullptr && (UnwindTable::find(range->unwind, g_leaf) != nullptr) == with_rows);
    g_leaf_stack = own_stack();
    struct sigaction action {};
    action.sa_sigaction = capture_in_leaf;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    CHECK(sigaction(SIGUSR2, &action, nullptr) == 0);
    const pthread_t target = pthread_self();
    std::thread signaller([target] {
        while (g_leaf_released == 0) {
            pthread_kill(target, SIGUSR2);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    });
    Captured unused;
    leaf_level1(&unused);
    signaller.join();
    signal(SIGUSR2, SIG_DFL);
    NativeSymbols symbols;
    std::string names;
    for (uint32_t i = 0; i < g_leaf_captured.count; i++) names += name_of(symbols, g_leaf_captured, i) + " ";
    std::fprintf(stderr, "%s: %u frames: %s\n", name, g_leaf_captured.count, names.c_str());
    CHECK(g_leaf_captured.count >= 4);
    CHECK(name_of(symbols, g_leaf_captured, 0) == name);
    CHECK(name_of(symbols, g_leaf_captured, 1).find("calls_the_leaf") != std::string::npos);
    CHECK(name_of(symbols, g_leaf_captured, 2).find("leaf_level1") != std::string::npos);
    CHECK(name_of(symbols, g_leaf_captured, 3).find("check_leaf") != std::string::npos);
}

// The reads for a stack whose bounds are not known (internal_threads.h) go through the kernel:
// safe_read fails on what is not mapped, and an unwind through it finds what direct reads find.
// Under qemu's user-mode emulation process_vm_readv is ENOSYS and safe_read copies through a pipe.
__attribute__((noinline)) void check_reads_through_kernel() {
    uintptr_t word = 0x5eed, out = 0;
    iovec local{&out, sizeof(out)}, remote{&word, sizeof(word)};
    const bool enosys = process_vm_readv(getpid(), &local, 1, &remote, 1, 0) < 0 && errno == ENOSYS;
    std::fprintf(stderr, "safe_read: %s\n", enosys ? "process_vm_readv is ENOSYS, through a pipe" : "process_vm_readv");
    out = 0;
    CHECK(safe_read(reinterpret_cast<uintptr_t>(&word), &out, sizeof(out)) && out == 0x5eed);
    CHECK(!safe_read(16, &out, sizeof(out)));
    void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED && munmap(page, 4096) == 0);
    CHECK(!safe_read(reinterpret_cast<uintptr_t>(page), &out, sizeof(out)));
    // Larger than a pipe holds; and many addresses at once, stopping at the first unreadable one.
    std::vector<uintptr_t> words(40000), copy(40000);
    for (size_t i = 0; i < words.size(); i++) words[i] = i * 7;
    CHECK(safe_read(reinterpret_cast<uintptr_t>(words.data()), copy.data(), words.size() * sizeof(uintptr_t)));
    CHECK(copy == words);
    std::vector<uintptr_t> addresses(600);
    for (size_t i = 0; i < addresses.size(); i++) addresses[i] = reinterpret_cast<uintptr_t>(&words[i * 3]);
    std::vector<uint16_t> halves(addresses.size());
    CHECK(safe_read_each(addresses.data(), addresses.size(), halves.data(), sizeof(uint16_t)) == addresses.size());
    for (size_t i = 0; i < halves.size(); i++) CHECK(halves[i] == static_cast<uint16_t>(i * 21));
    addresses[300] = reinterpret_cast<uintptr_t>(page);
    CHECK(safe_read_each(addresses.data(), addresses.size(), copy.data(), sizeof(uintptr_t)) == 300);
    CHECK(copy[299] == 299 * 21);
    g_through_kernel = true;
    check_chain("omit_fp_level", omit_fp_level1, "check_reads_through_kernel");
    g_through_kernel = false;
}

// A library loaded later is unknown until refresh() sees the loader's counters change, then known;
// after dlclose it is gone from the next snapshot. Meanwhile another thread keeps looking PCs up,
// as handlers do while the emitter refreshes.
void check_dlopen_and_dlclose_while_looking_up() {
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> lookups{0};
    const uintptr_t own_code = reinterpret_cast<uintptr_t>(&fp_level1);
    std::thread reader([&] {
        while (!stop.load()) {
            CHECK(NativeLibraries::find(own_code) != nullptr);
            lookups.fetch_add(1);
        }
    });
    while (lookups.load() == 0) std::this_thread::yield();
    for (int round = 0; round < 20; round++) {
        void* library = dlopen(TEST_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        CHECK(library != nullptr);
        const uintptr_t function = reinterpret_cast<uintptr_t>(dlsym(library, "native_unwind_test_function"));
        CHECK(function != 0);
        CHECK(NativeLibraries::refresh());
        const CodeRange* range = NativeLibraries::find(function);
        CHECK(range != nullptr && range->unwind.row_count > 0);
        NativeSymbols symbols;
        CHECK(symbols.name(function).symbol == "native_unwind_test_function");
        CHECK(symbols.name(function).library == "libnative_unwind_test_library.so");
        CHECK(dlclose(library) == 0);
        CHECK(NativeLibraries::refresh());
        CHECK(NativeLibraries::find(function) == nullptr);
    }
    stop.store(true);
    reader.join();
}

}  // namespace

// walker=vmstructs: the first frame outside the loaded objects, and a thread's first frame.
void check_caller_outside_objects() {
    // At a function's entry (native_unwind_test_<cpu>.h) its return address is one into code no
    // object holds.
    uintptr_t words[4] = {0, 0, 0, 0};
    const StackBounds fake{reinterpret_cast<uintptr_t>(words), reinterpret_cast<uintptr_t>(words + 4)};
    const Registers at_entry = at_function_entry(reinterpret_cast<uintptr_t>(&fp_level2), words, 0x12340);
    Registers caller{};
    bool outermost = true;
    CHECK(NativeUnwinder::caller_outside_objects(fake, at_entry, 4, &caller, &outermost));
    CHECK(caller.pc == 0x12340 && caller.sp == reinterpret_cast<uintptr_t>(words) + kEntryCfaOffset && !outermost);
    // Only the signal's frame has a link register: above it, an entry row cannot be followed.
    Registers no_link = at_entry;
    no_link.lr = 0;
    if (kEntryReturnAddressOffset == kReturnAddressInRegister) {
        CHECK(!NativeUnwinder::caller_outside_objects(fake, no_link, 4, &caller, &outermost));
    }
    // A PC no object holds has no native frame to unwind.
    CHECK(!NativeUnwinder::caller_outside_objects(fake, caller, 4, &caller, &outermost) && !outermost);
    // A thread that is all native code unwinds to its first frame.
    bool found = true;
    std::thread([&found, &outermost] {
        ucontext_t context;
        getcontext(&context);
        Registers unused{};
        found = NativeUnwinder::caller_outside_objects(own_stack(), read_registers(&context), kMaxFrames, &unused,
                                                       &outermost);
    }).join();
    CHECK(!found && outermost);
}

int main() {
    CHECK(NativeLibraries::refresh());
    CHECK(!NativeLibraries::refresh());  // nothing loaded since
    CHECK(NativeLibraries::size() > 0);
    check_chain("omit_fp_level", omit_fp_level1);
    check_chain("fp_level", fp_level1);
    check_rows_at_function_entry();
    check_reads_through_kernel();
    check_bounds_end_the_walk();
    check_caller_outside_objects();
    check_names();
    check_leaf("nocfi_leaf", nocfi_leaf, false);
    check_leaf("cfi_leaf", cfi_leaf, true);
    check_dlopen_and_dlclose_while_looking_up();
    std::printf("native_unwind_test: ok\n");
    return 0;
}
