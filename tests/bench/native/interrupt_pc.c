// Where a CPU-time signal's PC lands around a slow instruction: a loop whose one slow
// instruction is a cache-missing load (a pointer chase through 128 MiB in random order), then a
// loop whose one slow instruction is a 64-bit division, each sampled by perf task-clock every
// 1 ms of the thread's CPU with the PC read from the signal's ucontext; prints, per loop, how many
// samples landed at each byte offset of the loop and where its slow instruction and the next one
// start. docs/validation.md (Which inlined method a PC is in) quotes it. x86_64 Linux only.
//
//   cc -O1 -o /tmp/interrupt_pc tests/bench/native/interrupt_pc.c && /tmp/interrupt_pc 20000000 100000000
//   (arguments: iterations of the load loop, of the division loop)
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_SAMPLES 200000
static volatile uintptr_t samples[MAX_SAMPLES];
static volatile int sampled;

static void on_signal(int signal, siginfo_t* info, void* context) {
    (void)signal;
    (void)info;
    if (sampled < MAX_SAMPLES) samples[sampled++] = ((ucontext_t*)context)->uc_mcontext.gregs[REG_RIP];
}

extern char load_loop[], load_insn[], after_load[], load_end[];
extern char div_loop[], div_insn[], after_div[], div_end[];

__attribute__((noinline)) static uint64_t chase(uint64_t* start, long iterations) {
    uint64_t result;
    __asm__ volatile(
        "mov %1, %%rax\n mov %2, %%r8\n"
        "load_loop:\n 1: add $1, %%rbx\n add $1, %%rcx\n"
        "load_insn: mov (%%rax), %%rax\n"
        "after_load: add $1, %%rdx\n add $1, %%rsi\n add $1, %%rdi\n dec %%r8\n jnz 1b\n"
        "load_end:\n mov %%rax, %0\n"
        : "=r"(result) : "r"(start), "r"(iterations) : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "memory");
    return result;
}

__attribute__((noinline)) static uint64_t divide(long iterations) {
    uint64_t result;
    __asm__ volatile(
        "mov $123456789123, %%rax\n mov %1, %%r8\n mov $7, %%r9\n"
        "div_loop:\n 2: add $1, %%rbx\n add $1, %%rcx\n xor %%rdx, %%rdx\n"
        "div_insn: div %%r9\n"
        "after_div: add $123456789, %%rax\n add $1, %%rsi\n add $1, %%rdi\n dec %%r8\n jnz 2b\n"
        "div_end:\n mov %%rax, %0\n"
        : "=r"(result) : "r"(iterations) : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "memory");
    return result;
}

static void report(const char* name, const char* loop, const char* slow, const char* next, const char* end) {
    int at[256] = {0}, outside = 0;
    for (int i = 0; i < sampled; i++) {
        uintptr_t pc = samples[i];
        if (pc >= (uintptr_t)loop && pc < (uintptr_t)end) at[pc - (uintptr_t)loop]++;
        else outside++;
    }
    printf("%s loop: %d samples (%d outside it); slow instruction at +%ld, the next at +%ld\n", name, sampled,
           outside, (long)(slow - loop), (long)(next - loop));
    for (long offset = 0; offset < end - loop; offset++) {
        if (at[offset]) printf("  +%ld: %d\n", offset, at[offset]);
    }
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: interrupt_pc LOAD_ITERATIONS DIVISION_ITERATIONS\n");
        return 2;
    }
    const size_t n = (size_t)1 << 24;  // 128 MiB of pointers
    uint64_t* cells = malloc(n * sizeof(uint64_t));
    uint32_t* order = malloc(n * sizeof(uint32_t));
    if (cells == NULL || order == NULL) return 1;
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    srand(1);
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = ((size_t)rand() * 65536u + (size_t)rand()) % (i + 1);
        uint32_t swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
    for (size_t i = 0; i < n; i++) cells[order[i]] = (uint64_t)(uintptr_t)&cells[order[(i + 1) % n]];

    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &action, NULL);
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = 1000000;
    attr.exclude_kernel = 1;
    int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd < 0) {
        perror("perf_event_open");
        return 1;
    }
    struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
    fcntl(fd, F_SETFL, O_ASYNC);
    fcntl(fd, F_SETSIG, SIGPROF);
    fcntl(fd, F_SETOWN_EX, &owner);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);

    sampled = 0;
    uint64_t sink = chase(&cells[order[0]], atol(argv[1]));
    report("load", load_loop, load_insn, after_load, load_end);
    sampled = 0;
    sink += divide(atol(argv[2]));
    report("division", div_loop, div_insn, after_div, div_end);
    return (int)(sink & 1);
}
