// The signal frame, from real signals on four threads at once: a handler's own frames are unwound
// to the signal trampoline and the ucontext found there must be the one the handler received
// (null-ucontext=signal), also from a second handler that interrupted the first, synchronously
// (the first one's pthread_kill) and asynchronously (another thread's signal while it spins: a
// sample in JFR's suspension handler), and when two signals are delivered at once (one handler's
// context is the other's first instruction). On x86_64 (glibc's restorer, rt_sigframe) and
// aarch64 (the vDSO's or qemu-user's trampoline, found at load; unwind_arch_aarch64.cpp).
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "check.h"
#include "native_unwind/arch.h"
#include "native_unwind/native_libraries.h"
#include "request/thread_registry.h"
#include "walk/asgct_walk.h"

using namespace stackreq;

namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 25;
constexpr int kFirst = SIGUSR1, kSecond = SIGUSR2;

struct Worker {
    StackBounds stack{};
    pthread_t thread{};
    // What the handlers saw and found, round by round.
    void* first_context = nullptr;
    void* found_from_first = nullptr;
    void* found_from_second = nullptr;
    void* entry_context = nullptr;
    // Read by the releasing thread too; lock-free, so handlers may use them.
    std::atomic<bool> first_running{false};
    // Mode 1's spins so far: the releasing thread sends one signal per spin, none late.
    std::atomic<int> spins{0};
    std::atomic<bool> released{false};
    // 0: the first handler raises the second itself; 1: it spins until another thread's second
    // signal releases it; 2: both signals are delivered at once.
    std::atomic<int> mode{0};
    int matched_own = 0, matched_nested = 0, matched_entry = 0, rounds = 0;
};

// Set by each worker for itself before its first signal.
thread_local Worker* t_worker = nullptr;

StackBounds own_stack() {
    pthread_attr_t attributes;
    CHECK(pthread_getattr_np(pthread_self(), &attributes) == 0);
    void* address = nullptr;
    size_t size = 0;
    CHECK(pthread_attr_getstack(&attributes, &address, &size) == 0);
    pthread_attr_destroy(&attributes);
    return StackBounds{reinterpret_cast<uintptr_t>(address), reinterpret_cast<uintptr_t>(address) + size};
}

// The request's way: its own registers (getcontext) unwound to the trampoline.
__attribute__((noinline)) void* found_from_here(const StackBounds& stack) {
    ucontext_t own;
    getcontext(&own);
    return AsgctWalk::signal_context_of_caller(stack, &own);
}

void on_first(int, siginfo_t*, void* context) {
    Worker* worker = t_worker;
    worker->first_context = context;
    worker->found_from_first = found_from_here(worker->stack);
    if (worker->mode == 2) return;
    if (worker->mode == 1) worker->spins++;
    worker->first_running = true;
    if (worker->mode == 0) {
        pthread_kill(pthread_self(), kSecond);
    } else {
        while (!worker->released.load()) {
        }
    }
    worker->first_running = false;
}

void on_second(int, siginfo_t*, void* context) {
    Worker* worker = t_worker;
    if (worker->mode == 2) {
        // Delivered on top of the first signal's frame, at the first handler's entry.
        ThreadSlotView thread{};
        thread.stack_low = worker->stack.low;
        thread.stack_high = worker->stack.high;
        worker->entry_context = AsgctWalk::context_of_interrupted_code(thread, context);
        return;
    }
    if (!worker->first_running.load()) return;
    // In the first handler: from this signal's context (its pthread_kill, its spin loop) to the
    // first handler's signal frame.
    worker->found_from_second = AsgctWalk::signal_context_of_caller(worker->stack, context);
    worker->released = true;
}

void run_worker(Worker* worker) {
    t_worker = worker;
    worker->stack = own_stack();
    worker->thread = pthread_self();
    sigset_t both;
    sigemptyset(&both);
    sigaddset(&both, kFirst);
    sigaddset(&both, kSecond);
    for (int round = 0; round < kRounds; round++) {
        for (int mode = 0; mode < 3; mode++) {
            worker->mode = mode;
            worker->first_context = worker->found_from_first = worker->found_from_second = nullptr;
            worker->entry_context = nullptr;
            worker->released = false;
            if (mode == 2) {
                CHECK(pthread_sigmask(SIG_BLOCK, &both, nullptr) == 0);
                pthread_kill(pthread_self(), kFirst);
                pthread_kill(pthread_self(), kSecond);
                CHECK(pthread_sigmask(SIG_UNBLOCK, &both, nullptr) == 0);
                worker->matched_entry += worker->entry_context != nullptr &&
                                         worker->entry_context == worker->first_context;
            } else {
                // Mode 1: another thread sends the second signal while the first handler spins.
                pthread_kill(pthread_self(), kFirst);
                worker->matched_nested += worker->found_from_second != nullptr &&
                                          worker->found_from_second == worker->first_context;
            }
            worker->matched_own += worker->found_from_first != nullptr && worker->found_from_first == worker->first_context;
        }
        worker->rounds++;
    }
}

void install(int signal_number, void (*handler)(int, siginfo_t*, void*)) {
    struct sigaction action {};
    action.sa_sigaction = handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    CHECK(sigaction(signal_number, &action, nullptr) == 0);
}

void check_signal_frames() {
    install(kFirst, on_first);
    install(kSecond, on_second);
    std::vector<Worker> workers(kThreads);
    std::atomic<bool> done{false};
    // Sends the second signal to each worker whose first handler spins (mode 1), once per spin: a
    // second one, sent after the spin it was meant for ended, would land in a later round (in
    // mode 2, after both handlers ran, it would replace the context the check reads).
    std::thread releaser([&workers, &done] {
        std::vector<int> released_spin(workers.size(), 0);
        while (!done.load()) {
            for (size_t i = 0; i < workers.size(); i++) {
                Worker& worker = workers[i];
                const int spin = worker.spins.load();
                if (spin != released_spin[i] && worker.mode == 1 && worker.first_running) {
                    released_spin[i] = spin;
                    pthread_kill(worker.thread, kSecond);
                }
            }
            std::this_thread::yield();
        }
    });
    std::vector<std::thread> threads;
    for (Worker& worker : workers) threads.emplace_back(run_worker, &worker);
    for (std::thread& thread : threads) thread.join();
    done.store(true);
    releaser.join();
    signal(kFirst, SIG_DFL);
    signal(kSecond, SIG_DFL);
    for (const Worker& worker : workers) {
        std::fprintf(stderr, "signal frame: %d rounds, the handler's own %d of %d, from a nested handler %d of %d, "
                     "at a handler's entry %d of %d\n", worker.rounds, worker.matched_own, 3 * kRounds,
                     worker.matched_nested, 2 * kRounds, worker.matched_entry, kRounds);
        CHECK(worker.rounds == kRounds);
        CHECK(worker.matched_own == 3 * kRounds);
        CHECK(worker.matched_nested == 2 * kRounds);
        CHECK(worker.matched_entry == kRounds);
    }
}

// Outside a handler there is no signal frame: the unwind ends at the thread's first frame.
void check_no_signal_frame_outside_handlers() {
    std::thread([] { CHECK(found_from_here(own_stack()) == nullptr); }).join();
}

}  // namespace

int main() {
    CHECK(kSignalFrameKnown);
    CHECK(NativeLibraries::refresh());
    // Finds the trampoline (AsyncGetCallTrace is not there without a JVM: false).
    CHECK(!AsgctWalk::init());
    return run_tests("signal_frame_test", {check_no_signal_frame_outside_handlers, check_signal_frames});
}
