/*
 * libchaos.so: the reliability tests' profiling agent (io.stackreq.reliability.app.Chaos).
 *
 * Like librequester it reaches RequestStackTrace through GetExtensionFunctions only. What it adds:
 *  - pacers: native threads (not attached to the VM) that send the signal to registered Java
 *    threads round-robin at a fixed rate (N pacers x H Hz), independent of CPU time, so a
 *    2-core machine still sees 10 kHz of signal-driven requests;
 *  - fuzzing: with requestsPerSignal = K > 0 the handler makes K requests per signal, each with
 *    a copy of the real ucontext whose PC/SP/FP are mutated (random, near, a page away, zero,
 *    misaligned, all ones, kernel half, ...). The mutation of request id N is a pure function of
 *    (seed, N) and is recorded, so results can be broken down by mutation;
 *  - per-id results (return code, OS tid, mutation) in arrays mapped at load, written as
 *    PREFIX.bin / PREFIX.txt by writeResults() or, with out=PREFIX, at VMDeath;
 *  - a VMDeath callback that (option death=N) makes N requests after libstackreq's own VMDeath
 *    ran (it was loaded first, so its callback runs first): they must be refused;
 *  - natives that pass bad input (NULL env, objects that are not threads, deleted and cleared
 *    references) so the Java side can see the return code or an exception left pending.
 *
 * Options (comma separated): signal=N (SIGPROF), ids=N (capacity of the per-id arrays,
 * 2^21), out=PREFIX, death=N, seed=N, keepfiring (pacers keep running through VMDeath until the
 * process ends; a request refused with anything but WRONG_PHASE/NOT_AVAILABLE, or accepted,
 * after this agent's VMDeath prints a line "chaos: after VMDeath ..." on stderr), guard=avoid|only
 * (fuzzed SP/FP kept out of, or put into, the lowest 64 KiB of the thread's stack),
 * mutate=pc+sp+fp (the registers fuzzing may change; default all three), sweep=N (see g_sweep).
 *
 * Targets need not be Java threads: registerInternalThreads() makes the JVM's own threads (GC
 * workers, the VM thread, the JIT compilers) targets, startNativeSpinners(N, A) starts N native
 * threads that never attach to the VM and A that attach (as chaos-attached, a Java thread with no
 * Java frame), all computing in C until stopNativeSpinners(). The SP and FP of the JVM's threads and
 * of the unattached ones are mutated anywhere (no Java guard zone is theirs to avoid, as far as this
 * agent knows); an attached thread avoids its guard zones as a Java thread does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <dirent.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent_support.h"
#include "stackreq.h"

#define RC_WRONG_PHASE 112
#define RC_NOT_AVAILABLE 98

#define RC_SLOTS 256
#define MAX_TARGETS 4096
#define MAX_PACERS 64

static JavaVM *g_vm;
static jvmtiEnv *g_jvmti;
static stackreq_RequestStackTrace g_request;
static stackreq_EnableRequestStackTrace g_enable;
static stackreq_DisableRequestStackTrace g_disable;
static int g_signal = SIGPROF;
static long g_capacity = 1L << 21;
static char g_out[2048];
static int g_death_requests;
static int g_keep_firing;
static uint64_t g_seed = 0x5eed;

/* Per id (1..g_capacity-1), written by signal handlers with __atomic builtins. */
static uint8_t *g_rc;        /* rc + 1; 0 = not returned yet; 255 = rc >= 254 */
static int32_t *g_tid;
static uint16_t *g_mutation; /* pc kind | sp kind << 4 | fp kind << 8 | 0x8000 when fuzzed */

static atomic_long g_next_id;
static atomic_long g_rc_count[RC_SLOTS];
static atomic_long g_overflow;
static atomic_int g_in_handler;
static atomic_int g_per_signal; /* 0: one request with the real context; K: K fuzzed requests */
static atomic_int g_after_death;
/* Set by stop_pacers: a signal still queued for a thread then is counted, not turned into a
 * request, so the results written after stopping are final. */
static atomic_int g_closed;
static atomic_long g_late_signals;
static atomic_long g_after_death_requests;
static atomic_long g_errno_changed;

/* Pacers and their targets. */
static atomic_int g_targets[MAX_TARGETS]; /* tids; 0 = free */
static uintptr_t g_target_stack_low[MAX_TARGETS];  /* stack of each target, set before its tid */
static uintptr_t g_target_stack_high[MAX_TARGETS];
static int g_target_internal[MAX_TARGETS]; /* a thread JVMTI does not show: SP and FP mutated anywhere */
static atomic_int g_target_high;          /* slots in use are below this */
static atomic_uint g_cursor;
static atomic_int g_pacers_running;
static pthread_t g_pacers[MAX_PACERS];
static int g_pacer_count;
static long g_pacer_period_ns;
static atomic_long g_signals_sent;
static atomic_long g_signal_errors;
static pthread_mutex_t g_pacer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_handler_once = PTHREAD_ONCE_INIT;
static int g_handler_error;

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Mutation kinds, 4 bits each (Chaos.MUTATIONS on the Java side names them). */
enum { KEEP, RANDOM, NEAR, PAGES, ZERO, MISALIGNED, ALL_ONES, KERNEL, WIDE, KIND_COUNT, GUARD = KIND_COUNT };

/* HotSpot keeps the lowest pages of a Java thread's stack PROT_NONE (reserved, yellow and red
 * zones: 4 pages by default on x86_64); a read there while the thread is in Java is taken for a
 * Java stack overflow. guard=avoid (default) keeps mutated SP/FP out of the lowest GUARD_BYTES of
 * the thread's stack, guard=only puts them there (the reproduction of that failure mode). */
#define GUARD_BYTES (64 * 1024)
#define GUARD_ZONE_BYTES (16 * 1024)
static int g_guard_only;
/* mutate=pc+sp+fp (default): which registers fuzzed requests may mutate. */
static int g_mutable[3] = {1, 1, 1};
/* sweep=N: fuzzed request id gets PC = real PC + 1 + id % N and SP = 8 (FP kept), so the K = N
 * requests of one signal try every PC up to N bytes past the interrupted one with an SP that
 * cannot be read: whatever the VM reads through SP for a PC it recognizes faults at once. */
static long g_sweep;

static uint64_t mutate(uint64_t value, int kind, uint64_t r) {
    uint64_t small = 1 + (r >> 8) % 64;
    switch (kind) {
        case RANDOM: return r;
        case NEAR: return (r & 1) ? value + small : value - small;
        case PAGES: return (r & 1) ? value + 4096 * small : value - 4096 * small;
        case ZERO: return 0;
        case MISALIGNED: return value + 1 + (r >> 16) % 7;
        case ALL_ONES: return ~(uint64_t)0;
        case KERNEL: return 0xffff800000000000ULL + ((r >> 12) << 3) % (1ULL << 40);
        case WIDE: return (r & 1) ? value + (r >> 20) % (1 << 20) : value - (r >> 20) % (1 << 20);
        default: return value;
    }
}

/* Async-signal-safe: write(2) of a fixed text and a number. */
static void report_after_death(jvmtiError rc) {
    char line[80] = "chaos: after VMDeath RequestStackTrace returned ";
    size_t n = strlen(line);
    char digits[12];
    int count = 0;
    unsigned value = (unsigned)rc;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0 && count < 11);
    while (count > 0) line[n++] = digits[--count];
    line[n++] = '\n';
    (void)!write(2, line, n);
}

/* after_death: g_after_death as read before the request was made. */
static void record(long id, jvmtiError rc, uint16_t mutation, int after_death) {
    atomic_fetch_add(&g_rc_count[(unsigned)rc < RC_SLOTS ? (unsigned)rc : RC_SLOTS - 1], 1);
    if (after_death) {
        atomic_fetch_add(&g_after_death_requests, 1);
        if (rc != RC_WRONG_PHASE && rc != RC_NOT_AVAILABLE) report_after_death(rc);
    }
    if (id < g_capacity) {
        __atomic_store_n(&g_tid[id], (int32_t)agent_current_tid(), __ATOMIC_RELAXED);
        __atomic_store_n(&g_mutation[id], mutation, __ATOMIC_RELAXED);
        __atomic_store_n(&g_rc[id], (uint8_t)((unsigned)rc < 254 ? rc + 1 : 255), __ATOMIC_RELEASE);
    } else {
        atomic_fetch_add(&g_overflow, 1);
    }
}

/* Stack bounds of the calling thread, when it registered as a target; async-signal-safe.
 * *internal: it registered as a thread JVMTI does not show. */
static int own_stack(uintptr_t *low, uintptr_t *high, int *internal) {
    int tid = (int)agent_current_tid();
    int count = atomic_load(&g_target_high);
    *internal = 0;
    for (int i = 0; i < count; i++) {
        if (atomic_load_explicit(&g_targets[i], memory_order_acquire) == tid) {
            *low = g_target_stack_low[i];
            *high = g_target_stack_high[i];
            *internal = g_target_internal[i];
            return *low != 0;
        }
    }
    return 0;
}

static int in_guard_margin(uint64_t value, uintptr_t low) { return value >= low && value < low + GUARD_BYTES; }

/* No system call sets errno to this: a request that changes it broke the interrupted code's errno
 * (stackreq.h: RequestStackTrace leaves errno as it found it). */
#define ERRNO_SENTINEL 0x5eed

static jvmtiError request_checking_errno(void *ucontext, long id) {
    errno = ERRNO_SENTINEL;
    jvmtiError rc = g_request(g_jvmti, NULL, ucontext, (jlong)id);
    if (errno != ERRNO_SENTINEL) atomic_fetch_add(&g_errno_changed, 1);
    return rc;
}

static void fuzzed_request(ucontext_t *real, long id) {
    ucontext_t copy;
    memcpy(&copy, real, sizeof(copy));
    uint64_t r = mix(g_seed ^ (uint64_t)id);
    int kinds[3];
    uintptr_t low = 0, high = 0;
    int internal = 0;
    int bounds = own_stack(&low, &high, &internal);
    if (g_guard_only && bounds) {
        greg_t *gregs = copy.uc_mcontext.gregs;
        gregs[REG_RSP] = (greg_t)(low + (mix(r + 2) % (GUARD_ZONE_BYTES / 8)) * 8);
        gregs[REG_RBP] = (greg_t)(low + (mix(r + 3) % (GUARD_ZONE_BYTES / 8)) * 8);
        uint16_t mutation = (uint16_t)(0x8000 | KEEP | GUARD << 4 | GUARD << 8);
        int after_death = atomic_load(&g_after_death);
        record(id, g_request(g_jvmti, NULL, &copy, (jlong)id), mutation, after_death);
        return;
    }
    if (g_sweep > 0) {
        greg_t *gregs = copy.uc_mcontext.gregs;
        gregs[REG_RIP] += (greg_t)(1 + id % g_sweep);
        gregs[REG_RSP] = 8; /* not null (HotSpot gives up on a null SP), not readable */
        uint16_t mutation = (uint16_t)(0x8000 | NEAR | RANDOM << 4 | KEEP << 8);
        int after_death = atomic_load(&g_after_death);
        record(id, g_request(g_jvmti, NULL, &copy, (jlong)id), mutation, after_death);
        return;
    }
    if ((r & 15) == 0) {
        kinds[0] = kinds[1] = kinds[2] = KEEP; /* 1 in 16: the real context, as a control */
    } else {
        for (int i = 0; i < 3; i++) kinds[i] = g_mutable[i] ? (int)((r >> (4 + 4 * i)) % KIND_COUNT) : KEEP;
        if (kinds[0] == KEEP && kinds[1] == KEEP && kinds[2] == KEEP) {
            kinds[g_mutable[1] ? 1 : g_mutable[0] ? 0 : 2] = NEAR;
        }
    }
    greg_t *gregs = copy.uc_mcontext.gregs;
    gregs[REG_RIP] = (greg_t)mutate((uint64_t)gregs[REG_RIP], kinds[0], mix(r + 1));
    uint64_t sp = mutate((uint64_t)gregs[REG_RSP], kinds[1], mix(r + 2));
    uint64_t fp = mutate((uint64_t)gregs[REG_RBP], kinds[2], mix(r + 3));
    if (!internal && (!bounds || in_guard_margin(sp, low))) {
        sp = (uint64_t)gregs[REG_RSP];
        kinds[1] = KEEP;
    }
    if (!internal && (!bounds || in_guard_margin(fp, low))) {
        fp = (uint64_t)gregs[REG_RBP];
        kinds[2] = KEEP;
    }
    gregs[REG_RSP] = (greg_t)sp;
    gregs[REG_RBP] = (greg_t)fp;
    uint16_t mutation = (uint16_t)(0x8000 | kinds[0] | kinds[1] << 4 | kinds[2] << 8);
    int after_death = atomic_load(&g_after_death);
    jvmtiError rc = request_checking_errno(&copy, id);
    record(id, rc, mutation, after_death);
}

static void on_signal(int sig, siginfo_t *info, void *ucontext) {
    (void)sig;
    (void)info;
    int saved_errno = errno;
    atomic_fetch_add(&g_in_handler, 1);
    if (atomic_load(&g_closed)) {
        atomic_fetch_add(&g_late_signals, 1);
        atomic_fetch_sub(&g_in_handler, 1);
        errno = saved_errno;
        return;
    }
    int per_signal = atomic_load(&g_per_signal);
    if (per_signal <= 0) {
        long id = atomic_fetch_add(&g_next_id, 1) + 1;
        int after_death = atomic_load(&g_after_death);
        record(id, request_checking_errno(ucontext, id), 0, after_death);
    } else {
        for (int i = 0; i < per_signal; i++) {
            fuzzed_request((ucontext_t *)ucontext, atomic_fetch_add(&g_next_id, 1) + 1);
        }
    }
    atomic_fetch_sub(&g_in_handler, 1);
    errno = saved_errno;
}

static void install_handler(void) { g_handler_error = agent_install_handler(g_signal, on_signal); }

static void wait_for_handlers(void) {
    while (atomic_load(&g_in_handler) != 0) sched_yield();
}

/* ---- pacers ---- */

static int next_target(void) {
    int high = atomic_load(&g_target_high);
    for (int tries = 0; tries < high; tries++) {
        unsigned slot = atomic_fetch_add(&g_cursor, 1) % (unsigned)high;
        int tid = atomic_load(&g_targets[slot]);
        if (tid > 0) return tid;
    }
    return 0;
}

static void *pacer_main(void *arg) {
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* the JVM's signals are for its own threads */
    pid_t pid = getpid();
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (atomic_load(&g_pacers_running)) {
        next.tv_nsec += g_pacer_period_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        /* Behind by more than 100 periods (machine overloaded): resume from now, no burst. */
        long behind_ns = (now.tv_sec - next.tv_sec) * 1000000000L + (now.tv_nsec - next.tv_nsec);
        if (behind_ns > 100 * g_pacer_period_ns) next = now;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        int tid = next_target();
        if (tid == 0) continue;
        if (syscall(SYS_tgkill, pid, tid, g_signal) == 0) atomic_fetch_add(&g_signals_sent, 1);
        else atomic_fetch_add(&g_signal_errors, 1);
    }
    return NULL;
}

static int start_pacers(int count, int hz, int per_signal) {
    if (count <= 0 || count > MAX_PACERS || hz <= 0 || per_signal < 0) return EINVAL;
    pthread_once(&g_handler_once, install_handler);
    if (g_handler_error != 0) return g_handler_error;
    pthread_mutex_lock(&g_pacer_lock);
    int result = 0;
    if (g_pacer_count != 0) {
        result = EBUSY;
    } else {
        atomic_store(&g_per_signal, per_signal);
        atomic_store(&g_closed, 0);
        g_pacer_period_ns = 1000000000L / hz;
        atomic_store(&g_pacers_running, 1);
        for (int i = 0; i < count; i++) {
            result = pthread_create(&g_pacers[i], NULL, pacer_main, NULL);
            if (result != 0) break;
            g_pacer_count++;
        }
    }
    pthread_mutex_unlock(&g_pacer_lock);
    return result;
}

static void stop_pacers(void) {
    pthread_mutex_lock(&g_pacer_lock);
    atomic_store(&g_pacers_running, 0);
    for (int i = 0; i < g_pacer_count; i++) pthread_join(g_pacers[i], NULL);
    g_pacer_count = 0;
    atomic_store(&g_closed, 1);
    pthread_mutex_unlock(&g_pacer_lock);
    wait_for_handlers();
}

/* Waits until every id up to `up_to` has its return code recorded; false after timeout_ms. */
static int await_results(long up_to, long timeout_ms) {
    if (up_to >= g_capacity) up_to = g_capacity - 1;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long id = 1; id <= up_to; id++) {
        while (__atomic_load_n(&g_rc[id], __ATOMIC_ACQUIRE) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L > timeout_ms) return 0;
            sched_yield();
        }
    }
    return 1;
}

/* ---- results ---- */

static int write_fully(int fd, const void *data, size_t size) {
    const char *bytes = data;
    while (size > 0) {
        ssize_t n = write(fd, bytes, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        bytes += n;
        size -= (size_t)n;
    }
    return 1;
}

/* PREFIX.bin: "CHAOS001", int64 n, then rc[1..n] (u8), tid[1..n] (i32), mutation[1..n] (u16),
 * little endian. PREFIX.txt: key=value counters. Returns 0 or an errno value. */
static int write_results(const char *prefix, long up_to) {
    long n = up_to < g_capacity ? up_to : g_capacity - 1;
    char path[2100];
    snprintf(path, sizeof(path), "%s.bin", prefix);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    int64_t count = n;
    int ok = write_fully(fd, "CHAOS001", 8) && write_fully(fd, &count, 8) && write_fully(fd, g_rc + 1, (size_t)n) &&
             write_fully(fd, g_tid + 1, (size_t)n * 4) && write_fully(fd, g_mutation + 1, (size_t)n * 2);
    int error = ok ? 0 : errno;
    close(fd);
    if (!ok) return error ? error : EIO;
    snprintf(path, sizeof(path), "%s.txt", prefix);
    FILE *text = fopen(path, "we");
    if (text == NULL) return errno;
    fprintf(text,
            "ids=%ld\nissued=%ld\noverflow=%ld\nsignalsSent=%ld\nsignalErrors=%ld\nafterDeath=%ld\nlateSignals=%ld\n"
            "errnoChanged=%ld\n",
            n,
            (long)atomic_load(&g_next_id), (long)atomic_load(&g_overflow), (long)atomic_load(&g_signals_sent),
            (long)atomic_load(&g_signal_errors), (long)atomic_load(&g_after_death_requests),
            (long)atomic_load(&g_late_signals), (long)atomic_load(&g_errno_changed));
    for (int code = 0; code < RC_SLOTS; code++) {
        long c = atomic_load(&g_rc_count[code]);
        if (c != 0) fprintf(text, "rc.%d=%ld\n", code, c);
    }
    return fclose(text) == 0 ? 0 : errno;
}

/* ---- agent ---- */

static const struct agent_flag FLAGS[] = {
    {"guard=avoid", &g_guard_only, 0},
    {"guard=only", &g_guard_only, 1},
    {"keepfiring", &g_keep_firing, 1},
};

static int accept_option(const char *item) {
    long value = 0;
    if (strncmp(item, "signal=", 7) == 0) {
        if (!agent_parse_long(item + 7, 1, NSIG - 1, &value)) return 0;
        g_signal = (int)value;
    } else if (strncmp(item, "ids=", 4) == 0) {
        if (!agent_parse_long(item + 4, 16, 1L << 30, &value)) return 0;
        g_capacity = value;
    } else if (strncmp(item, "death=", 6) == 0) {
        if (!agent_parse_long(item + 6, 0, 1000000, &value)) return 0;
        g_death_requests = (int)value;
    } else if (strncmp(item, "seed=", 5) == 0) {
        if (!agent_parse_long(item + 5, 0, 0x7fffffffffffffffL, &value)) return 0;
        g_seed = (uint64_t)value;
    } else if (strncmp(item, "out=", 4) == 0) {
        if (strlen(item + 4) == 0 || strlen(item + 4) >= sizeof(g_out)) return 0;
        strcpy(g_out, item + 4);
    } else if (strncmp(item, "sweep=", 6) == 0) {
        if (!agent_parse_long(item + 6, 1, 1 << 16, &value)) return 0;
        g_sweep = value;
    } else if (strncmp(item, "mutate=", 7) == 0) {
        const char *names[3] = {"pc", "sp", "fp"};
        for (int r = 0; r < 3; r++) g_mutable[r] = strstr(item + 7, names[r]) != NULL;
        return g_mutable[0] || g_mutable[1] || g_mutable[2];
    } else {
        return agent_set_flag(item, FLAGS, sizeof(FLAGS) / sizeof(FLAGS[0]));
    }
    return 1;
}

static void *map_array(size_t bytes) {
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

/* Runs after libstackreq's VMDeath callback (its environment was created first). */
static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni) {
    (void)jvmti;
    (void)jni;
    if (!g_keep_firing) stop_pacers();
    atomic_store(&g_after_death, 1);
    long death_first = atomic_load(&g_next_id) + 1;
    /* Half from normal code (no ucontext), half from the handler of a signal sent to this
     * thread (the unbiased path; pthread_kill to self delivers before it returns). */
    pthread_once(&g_handler_once, install_handler);
    atomic_store(&g_closed, 0);
    for (int i = 0; i < g_death_requests; i++) {
        if (i % 2 == 1 && g_handler_error == 0) {
            pthread_kill(pthread_self(), g_signal);
            continue;
        }
        long id = atomic_fetch_add(&g_next_id, 1) + 1;
        record(id, g_request(g_jvmti, NULL, NULL, (jlong)id), 0x4000, 1);
    }
    long up_to = atomic_load(&g_next_id);
    int complete = await_results(up_to, 5000);
    if (g_out[0] != '\0') {
        int error = write_results(g_out, up_to);
        if (error != 0) fprintf(stderr, "chaos: cannot write %s: %s\n", g_out, strerror(error));
        char path[2100];
        snprintf(path, sizeof(path), "%s.death", g_out);
        FILE *death = fopen(path, "we");
        if (death != NULL) {
            fprintf(death, "deathFirst=%ld\ndeathRequests=%d\ncomplete=%d\n", death_first, g_death_requests, complete);
            fclose(death);
        }
    }
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!agent_parse_options("chaos", options, accept_option)) return JNI_ERR;
    g_vm = vm;
    if ((*vm)->GetEnv(vm, (void **)&g_jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        fprintf(stderr, "chaos: no JVMTI\n");
        return JNI_ERR;
    }
    jvmtiError error = stackreq_find_extension_functions(g_jvmti, &g_request, &g_enable, &g_disable);
    if (error != JVMTI_ERROR_NONE) {
        fprintf(stderr, "chaos: GetExtensionFunctions does not list %s (error %d)\n", STACKREQ_ID_REQUEST_STACK_TRACE,
                (int)error);
        return JNI_ERR;
    }
    g_rc = map_array((size_t)g_capacity);
    g_tid = map_array((size_t)g_capacity * 4);
    g_mutation = map_array((size_t)g_capacity * 2);
    if (g_rc == NULL || g_tid == NULL || g_mutation == NULL) {
        fprintf(stderr, "chaos: cannot map the result arrays (ids=%ld)\n", g_capacity);
        return JNI_ERR;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.VMDeath = on_vm_death;
    (*g_jvmti)->SetEventCallbacks(g_jvmti, &callbacks, sizeof(callbacks));
    (*g_jvmti)->SetEventNotificationMode(g_jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    return JNI_OK;
}

/* ---- JNI natives of io.stackreq.reliability.app.Chaos ---- */

/* JNI's environment and class come first, named jni and cls (most natives here use neither), then the method's own
 * parameters. */
#define NATIVE(ret, name, ...)                                                                       \
    JNIEXPORT ret JNICALL Java_io_stackreq_reliability_app_Chaos_##name(                             \
        JNIEnv *jni __attribute__((unused)), jclass cls __attribute__((unused)), ##__VA_ARGS__)

NATIVE(jint, enable) {
    return (jint)g_enable(g_jvmti);
}

NATIVE(jint, disable) {
    return (jint)g_disable(g_jvmti);
}

NATIVE(jint, currentTid) {
    return (jint)agent_current_tid();
}

/* The calling thread's stack mapping, or 0 and 0. */
static void own_stack_bounds(uintptr_t *low, uintptr_t *high) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void *address = NULL;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &address, &size) == 0) {
        *low = (uintptr_t)address;
        *high = *low + size;
    }
    pthread_attr_destroy(&attr);
}

/* Makes tid a target of the pacers; returns tid, or -1 when full. */
static int add_target(int tid, uintptr_t low, uintptr_t high, int internal) {
    for (int i = 0; i < MAX_TARGETS; i++) {
        int expected = 0;
        if (!atomic_compare_exchange_strong(&g_targets[i], &expected, -1)) continue; /* claimed */
        g_target_stack_low[i] = low;
        g_target_stack_high[i] = high;
        g_target_internal[i] = internal;
        atomic_store_explicit(&g_targets[i], tid, memory_order_release);
        int top = atomic_load(&g_target_high);
        while (top < i + 1 && !atomic_compare_exchange_weak(&g_target_high, &top, i + 1)) {
        }
        return tid;
    }
    return -1;
}

static void remove_target(int tid) {
    int high = atomic_load(&g_target_high);
    for (int i = 0; i < high; i++) {
        int expected = tid;
        if (atomic_compare_exchange_strong(&g_targets[i], &expected, 0)) return;
    }
}

/* Makes the calling thread a target of the pacers; returns its OS tid, or -1 when full. */
NATIVE(jint, register) {
    int tid = (int)agent_current_tid();
    uintptr_t low = 0, high = 0;
    own_stack_bounds(&low, &high);
    return add_target(tid, low, high, 0);
}

NATIVE(void, unregister) { remove_target((int)agent_current_tid()); }

/* The JVM's own threads as HotSpot names them (Linux keeps 15 bytes of a name). */
static int is_jvm_internal_name(const char *comm) {
    static const char *const prefixes[] = {"GC Thread#", "G1 ", "VM Thread", "C1 CompilerThre", "C2 CompilerThre"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        if (strncmp(comm, prefixes[i], strlen(prefixes[i])) == 0) return 1;
    }
    return 0;
}

/* Makes every JVM-internal thread running now a target; returns how many. */
NATIVE(jint, registerInternalThreads) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) return 0;
    int added = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        int tid = atoi(entry->d_name);
        if (tid <= 0) continue;
        char path[64], comm[32] = {0};
        snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t length = read(fd, comm, sizeof(comm) - 1);
        close(fd);
        if (length > 0 && is_jvm_internal_name(comm) && add_target(tid, 0, 0, 1) > 0) added++;
    }
    closedir(tasks);
    return added;
}

/* ---- native spinners: threads the VM never sees ---- */

#define MAX_SPINNERS 8
static pthread_t g_spinners[MAX_SPINNERS];
static int g_spinner_count;
static atomic_int g_spinning;
static atomic_ulong g_spin_sink;

static __attribute__((noinline)) unsigned long spin_leaf(unsigned long x) {
    for (int i = 0; i < 1000; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}

static __attribute__((noinline)) unsigned long spin_middle(unsigned long x) { return spin_leaf(x) ^ spin_leaf(x + 1); }

/* arg non-null: attach to the VM first (a Java thread without Java frames). */
static void *spinner_main(void *arg) {
    int tid = (int)agent_current_tid();
    JNIEnv *jni = NULL;
    if (arg != NULL) {
        JavaVMAttachArgs attach = {JNI_VERSION_1_6, "chaos-attached", NULL};
        if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, (void **)&jni, &attach) != JNI_OK) return NULL;
        uintptr_t low = 0, high = 0;
        own_stack_bounds(&low, &high);
        add_target(tid, low, high, 0);
    } else {
        pthread_setname_np(pthread_self(), "chaos-spinner");
        add_target(tid, 0, 0, 1);
    }
    unsigned long x = (unsigned long)tid;
    while (atomic_load(&g_spinning)) x = spin_middle(x);
    atomic_fetch_add(&g_spin_sink, x);
    remove_target(tid);
    if (jni != NULL) (*g_vm)->DetachCurrentThread(g_vm);
    return NULL;
}

/* Starts unattached + attached native threads, each a target until stopNativeSpinners; 0 or an
 * errno value. */
NATIVE(jint, startNativeSpinners, jint unattached, jint attached) {
    if (unattached < 0 || attached < 0 || unattached + attached > MAX_SPINNERS || g_spinner_count != 0) {
        return EINVAL;
    }
    atomic_store(&g_spinning, 1);
    static int attach_flag = 1;
    for (int i = 0; i < unattached + attached; i++) {
        int result = pthread_create(&g_spinners[i], NULL, spinner_main, i < unattached ? NULL : &attach_flag);
        if (result != 0) return result;
        g_spinner_count++;
    }
    return 0;
}

NATIVE(void, stopNativeSpinners) {
    atomic_store(&g_spinning, 0);
    for (int i = 0; i < g_spinner_count; i++) pthread_join(g_spinners[i], NULL);
    g_spinner_count = 0;
}

NATIVE(jint, startPacers, jint pacers, jint hz, jint per_signal) {
    return start_pacers(pacers, hz, per_signal);
}

NATIVE(void, stopPacers) {
    stop_pacers();
}

/* Delivers the signal to the calling thread now (its handler requests with the current setting). */
NATIVE(jint, signalSelf) {
    pthread_once(&g_handler_once, install_handler);
    if (g_handler_error != 0) return g_handler_error;
    return pthread_kill(pthread_self(), g_signal);
}

NATIVE(jlong, issued) {
    return (jlong)atomic_load(&g_next_id);
}

NATIVE(jlong, signalsSent) {
    return (jlong)atomic_load(&g_signals_sent);
}

NATIVE(jboolean, awaitResults, jlong up_to, jlong timeout_ms) {
    return await_results((long)up_to, (long)timeout_ms) ? JNI_TRUE : JNI_FALSE;
}

/* rc of request id, or -1 when it has not returned (or is beyond the arrays). */
NATIVE(jint, resultOf, jlong id) {
    if (id <= 0 || id >= g_capacity) return -1;
    int value = __atomic_load_n(&g_rc[id], __ATOMIC_ACQUIRE);
    return value == 0 ? -1 : value - 1;
}

NATIVE(jint, writeResults, jstring prefix) {
    const char *chars = (*jni)->GetStringUTFChars(jni, prefix, NULL);
    if (chars == NULL) return ENOMEM;
    int result = write_results(chars, atomic_load(&g_next_id));
    (*jni)->ReleaseStringUTFChars(jni, prefix, chars);
    return result;
}

/* RequestStackTrace from normal code with the current thread and no ucontext: id from the
 * shared counter, recorded like a handler's request. Returns the id. */
NATIVE(jlong, requestHere) {
    long id = atomic_fetch_add(&g_next_id, 1) + 1;
    int after_death = atomic_load(&g_after_death);
    record(id, g_request(g_jvmti, NULL, NULL, (jlong)id), 0, after_death);
    return (jlong)id;
}

/* ---- bad input; each returns the jvmtiError (a pending exception stays pending) ---- */

NATIVE(jint, requestNullEnv, jthread thread, jlong user_data) {
    return (jint)g_request(NULL, thread == NULL ? NULL : &thread, NULL, user_data);
}

NATIVE(jint, enableNullEnv) {
    return (jint)g_enable(NULL);
}

NATIVE(jint, disableNullEnv) {
    return (jint)g_disable(NULL);
}

NATIVE(jint, requestObject, jobject object, jlong user_data) {
    jthread as_thread = (jthread)object;
    return (jint)g_request(g_jvmti, &as_thread, NULL, user_data);
}

/* A local reference deleted before the call. HotSpot clears a deleted local handle's slot (it
 * resolves to null) and does not reuse it before the native returns, so this is deterministic. */
NATIVE(jint, requestDeletedLocal, jobject object, jlong user_data) {
    jthread stale = (jthread)(*jni)->NewLocalRef(jni, object);
    (*jni)->DeleteLocalRef(jni, stale);
    return (jint)g_request(g_jvmti, &stale, NULL, user_data);
}

/* A global reference deleted before the call; a sibling global reference to the same object is
 * held across the call so the storage block the deleted slot lives in stays allocated. */
NATIVE(jint, requestDeletedGlobal, jobject object, jlong user_data) {
    jobject keep = (*jni)->NewGlobalRef(jni, object);
    jthread stale = (jthread)(*jni)->NewGlobalRef(jni, object);
    (*jni)->DeleteGlobalRef(jni, stale);
    jint rc = (jint)g_request(g_jvmti, &stale, NULL, user_data);
    (*jni)->DeleteGlobalRef(jni, keep);
    return rc;
}

/* Weak global references: a valid JNI handle whose referent may have been collected. */
NATIVE(jlong, newWeak, jobject object) {
    return (jlong)(intptr_t)(*jni)->NewWeakGlobalRef(jni, object);
}

NATIVE(jboolean, weakCleared, jlong weak) {
    return (*jni)->IsSameObject(jni, (jobject)(intptr_t)weak, NULL);
}

NATIVE(jint, requestWeak, jlong weak, jlong user_data) {
    jthread thread = (jthread)(intptr_t)weak;
    return (jint)g_request(g_jvmti, &thread, NULL, user_data);
}

NATIVE(void, deleteWeak, jlong weak) {
    (*jni)->DeleteWeakGlobalRef(jni, (jobject)(intptr_t)weak);
}
