/*
 * liboracle.so: the native half of the correctness oracle (io.stackreq.validation.oracle).
 *
 * Instrumented Java code keeps a shadow stack per thread in memory this library owns (one slot
 * per thread, handed to Java as a direct ByteBuffer, see ShadowStack.java for the layout). This
 * agent checks stack traces against it in three layers:
 *  (a) JVMTI GetStackTrace of the current thread, called from Java at sampled method entries
 *      (checkStack): the shadow stack and the JVMTI frames go to a record file;
 *  (b) RequestStackTrace(env, NULL, NULL, id) from the same JNI call (requestBiased): the
 *      request is flushed (Disable, then Enable again) while the thread is still in this native
 *      method, so the biased stack is the stack of this exact point;
 *  (c) perf task-clock overflow signals, 1 ms of each attached thread's CPU time: the handler
 *      copies the shadow stack and the interrupted PC into a preallocated arena and passes the
 *      copy's id as user_data to RequestStackTrace(env, NULL, ucontext, id). With
 *      "signals=cpu-timer" a POSIX timer on the thread's CPU-time clock sends them instead (every
 *      1 ms asked, at most one per kernel tick given): for where perf_event_open does not exist,
 *      such as qemu's user-mode emulation, where it is ENOSYS.
 * In layers (b) and (c) the snapshot also keeps the stack's words that may be return addresses,
 * for the frame-type check, and the JIT's debug information for every compiled method goes to
 * compiled-code.txt (compiled_code.c).
 * The snapshots are written to a file by finish() (or at VMDeath); the Java checker compares
 * each jdk.StackTraceRequest event with the snapshot of the same user_data.
 *
 * Like librequester.so it finds RequestStackTrace through GetExtensionFunctions only.
 * Loaded into a running JVM (Agent_OnAttach, after libstackreq.so), it also replays the code
 * compiled before, and sets ShadowStack.oracleLoaded: the workload threads, warmed up and waiting
 * for that flag, then move their shadow stacks here and get their signals (OracleAttachMain).
 * Options: "out=DIR" (snapshots.txt, jvmti-checks.txt and compiled-code.txt go there), "layers=ac"
 * or "layers=b", and "signals=perf" (the default) or "signals=cpu-timer" for layer (c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <jvmti.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent_support.h"
#include "compiled_code.h"
#include "method_key.h"
#include "stackreq.h"

/* Shadow stack layout, in 32-bit ints; must match ShadowStack.java. */
enum { H_DEPTH, H_FLAG, H_COUNTER, H_TAG, H_OVERFLOW, H_CORRUPT, H_POPPED, H_RESERVED, H_FRAMES };
#define MAX_FRAMES 4096
#define SHADOW_INTS (H_FRAMES + 2 * MAX_FRAMES)
#define MAX_THREADS 1024

/* A snapshot: SNAP_HEADER ints, then depth (id, line) pairs. */
enum { S_LAYER, S_TID, S_TAG, S_FLAG, S_POPPED, S_OVERFLOW, S_DEPTH, S_RC, S_PC_LOW, S_PC_HIGH, S_CODE_SEQUENCE,
       S_CODE_WORDS, SNAP_HEADER };
/* Layers (b) and (c) also keep the stack words that may be return addresses
 * (compiled_code_may_hold), from the interrupted SP (layer (b): the JNI function's frame) up, as
 * (word index from SP, low half, high half): the frame-type check finds the physical frames
 * below the top one by them. At most this many words, and this far; S_CODE_WORDS is negative
 * when the scan stopped at a limit before the stack's end. */
#define MAX_CODE_WORDS 4096
#define MAX_SCAN_BYTES (1u << 20)
#define ARENA_INTS (48u << 20) /* 192 MiB of address space, touched as used */
#define MAX_SNAPSHOTS (1 << 20)

struct thread_slot {
    _Atomic int32_t tid; /* 0 = free */
    uintptr_t stack_high; /* one past the thread's stack, 0 when unknown */
    int32_t *shadow;     /* SHADOW_INTS, owned here, reused */
    int perf_fd;         /* -1 when none */
    timer_t timer;       /* signals=cpu-timer: valid while has_timer */
    _Atomic int has_timer;
};

static jvmtiEnv *g_jvmti;
static stackreq_RequestStackTrace g_request;
static stackreq_EnableRequestStackTrace g_enable;
static stackreq_DisableRequestStackTrace g_disable;
static char g_out[1024] = ".";
static int g_layer_c;
static int g_signal = SIGPROF;
static int g_cpu_timer; /* signals=cpu-timer */

static struct thread_slot g_threads[MAX_THREADS];
static pthread_mutex_t g_threads_lock = PTHREAD_MUTEX_INITIALIZER;

static int32_t *g_arena;
static atomic_uint g_arena_used;
static int64_t g_snapshot_offset[MAX_SNAPSHOTS]; /* -1 = none */
static atomic_int g_snapshots;
static atomic_long g_dropped;     /* arena or index full */
static atomic_long g_signals_lost; /* perf signals for a thread without a slot */
static atomic_int g_in_handler;

static pthread_mutex_t g_check_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *g_checks;      /* layer (a) records */
static long g_check_count;
static pthread_mutex_t g_biased_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_finished;

static struct thread_slot *find_slot(pid_t tid) {
    for (int i = 0; i < MAX_THREADS; i++) {
        if (atomic_load_explicit(&g_threads[i].tid, memory_order_acquire) == tid) return &g_threads[i];
    }
    return NULL;
}

/* Counts (out == NULL) or copies (3 ints each) the stack words in [sp, stack_high) that may be
 * return addresses, at most max; returns how many, negated when a limit cut the scan short.
 * Async-signal-safe: reads of the thread's own stack only. */
static int code_words(uintptr_t sp, uintptr_t stack_high, int32_t *out, int max) {
    if (sp == 0 || stack_high <= sp || sp % sizeof(uintptr_t) != 0) return 0;
    uintptr_t end = stack_high - sp > MAX_SCAN_BYTES ? sp + MAX_SCAN_BYTES : stack_high;
    int count = 0;
    uintptr_t at = sp;
    for (; at < end && count < max; at += sizeof(uintptr_t)) {
        uintptr_t word = *(const uintptr_t *)at;
        if (!compiled_code_may_hold(word)) continue;
        if (out != NULL) {
            out[3 * count] = (int32_t)((at - sp) / sizeof(uintptr_t));
            out[3 * count + 1] = (int32_t)(uint32_t)word;
            out[3 * count + 2] = (int32_t)(uint32_t)((uint64_t)word >> 32);
        }
        count++;
    }
    return at < stack_high ? -count : count;
}

/* Copies the shadow stack (and the code words of the stack from sp up to stack_high, after link
 * when that may be a return address) into the arena; returns the snapshot id (1..) or 0 when full.
 * link: the interrupted link register (aarch64's x30), 0 for none. Until a method's prologue has
 * stored it, and after its epilogue has loaded it again, the return address into the caller is
 * there and on no stack word; it is kept first, as word -1 (one below sp).
 * Async-signal-safe: atomics and plain copies only. */
static int take_snapshot(const int32_t *shadow, int layer, pid_t tid, uintptr_t pc, uintptr_t sp,
                         uintptr_t stack_high, uintptr_t link) {
    int32_t depth = shadow[H_DEPTH];
    if (depth < 0 || depth > MAX_FRAMES) depth = 0;
    int lead = link != 0 && compiled_code_may_hold(link) ? 1 : 0;
    int words = code_words(sp, stack_high, NULL, MAX_CODE_WORDS - lead);
    unsigned size = SNAP_HEADER + 2u * (unsigned)depth + 3u * (unsigned)(lead + (words < 0 ? -words : words));
    unsigned offset = atomic_fetch_add(&g_arena_used, size);
    int index = atomic_fetch_add(&g_snapshots, 1);
    if (offset + size > ARENA_INTS || index >= MAX_SNAPSHOTS) {
        atomic_fetch_add(&g_dropped, 1);
        return 0;
    }
    int32_t *snap = g_arena + offset;
    snap[S_LAYER] = layer;
    snap[S_TID] = tid;
    snap[S_TAG] = shadow[H_TAG];
    snap[S_FLAG] = shadow[H_FLAG];
    snap[S_POPPED] = shadow[H_POPPED];
    snap[S_OVERFLOW] = shadow[H_OVERFLOW];
    snap[S_DEPTH] = depth;
    snap[S_RC] = -1;
    snap[S_PC_LOW] = (int32_t)(uint32_t)pc;
    snap[S_PC_HIGH] = (int32_t)(uint32_t)((uint64_t)pc >> 32);
    snap[S_CODE_SEQUENCE] = (int32_t)compiled_code_sequence();
    memcpy(snap + SNAP_HEADER, shadow + H_FRAMES, sizeof(int32_t) * 2u * (unsigned)depth);
    int32_t *out = snap + SNAP_HEADER + 2 * depth;
    if (lead) {
        out[0] = -1;
        out[1] = (int32_t)(uint32_t)link;
        out[2] = (int32_t)(uint32_t)((uint64_t)link >> 32);
    }
    /* No more than counted (the code range may have grown since); cut short if the count was. */
    int copied = code_words(sp, stack_high, out + 3 * lead, words < 0 ? -words : words);
    if (copied < 0) copied = -copied;
    copied += lead;
    snap[S_CODE_WORDS] = words < 0 ? -copied : copied;
    g_snapshot_offset[index] = offset;
    return index + 1;
}

/* The interrupted PC, SP into *sp and the link register into *link (0 where calls push the
 * return address instead, as on x86_64). */
static uintptr_t interrupted_pc(const void *ucontext, uintptr_t *sp, uintptr_t *link) {
    const ucontext_t *context = ucontext;
#if defined(__x86_64__)
    *sp = (uintptr_t)context->uc_mcontext.gregs[REG_RSP];
    *link = 0;
    return (uintptr_t)context->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    *sp = (uintptr_t)context->uc_mcontext.sp;
    *link = (uintptr_t)context->uc_mcontext.regs[30];
    return (uintptr_t)context->uc_mcontext.pc;
#else
#error "interrupted_pc: unsupported architecture"
#endif
}

/* Whether the signal is this slot's own: its perf event's (si_fd) or its timer's (si_value = the
 * slot's index). Async-signal-safe. */
static int signal_of(const struct thread_slot *slot, const siginfo_t *info) {
    if (g_cpu_timer) {
        return info->si_code == SI_TIMER && atomic_load(&slot->has_timer) &&
               info->si_value.sival_int == (int)(slot - g_threads);
    }
    return slot->perf_fd >= 0 && info->si_fd == slot->perf_fd;
}

static void on_signal(int sig, siginfo_t *info, void *ucontext) {
    (void)sig;
    int saved_errno = errno;
    atomic_fetch_add(&g_in_handler, 1);
    struct thread_slot *slot = find_slot(agent_current_tid());
    if (slot == NULL || !signal_of(slot, info)) {
        atomic_fetch_add(&g_signals_lost, 1);
    } else {
        if (!atomic_load(&g_finished)) {
            uintptr_t sp = 0, link = 0;
            uintptr_t pc = interrupted_pc(ucontext, &sp, &link);
            int id = take_snapshot(slot->shadow, 'c', slot->tid, pc, sp, slot->stack_high, link);
            if (id > 0) {
                jvmtiError rc = g_request(g_jvmti, NULL, ucontext, (jlong)id);
                g_arena[g_snapshot_offset[id - 1] + S_RC] = (int32_t)rc;
            }
        }
        /* The timer is periodic; the perf event stops after each overflow until refreshed. */
        if (!g_cpu_timer) ioctl(slot->perf_fd, PERF_EVENT_IOC_REFRESH, 1);
    }
    atomic_fetch_sub(&g_in_handler, 1);
    errno = saved_errno;
}

/* perf task-clock on the calling thread, 1 ms of its CPU time per signal (to this thread). */
static int open_task_clock(pid_t tid) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = 1000000;
    attr.disabled = 1;
    int fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) return -1;
    struct f_owner_ex owner = {F_OWNER_TID, tid};
    if (fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, g_signal) != 0 ||
        fcntl(fd, F_SETOWN_EX, &owner) != 0 || ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* signals=cpu-timer: a periodic POSIX timer on tid's CPU-time clock, 1 ms, signalling tid with
 * the slot's index as its value. Returns 0 or an errno value. */
static int start_cpu_timer(struct thread_slot *slot, pid_t tid) {
    /* The thread's CPU-time clock by tid (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) of the
     * kernel's posix-timers.h), what pthread_getcpuclockid returns for the calling thread. */
    clockid_t clock = (clockid_t)((~(unsigned)tid) << 3) | 2 | 4;
    struct sigevent event;
    memset(&event, 0, sizeof(event));
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = g_signal;
    event.sigev_value.sival_int = (int)(slot - g_threads);
    /* glibc does not name sigev_notify_thread_id, the kernel's field for the thread. */
    event._sigev_un._tid = tid;
    if (timer_create(clock, &event, &slot->timer) != 0) return errno;
    struct itimerspec period = {{0, 1000000}, {0, 1000000}};
    atomic_store(&slot->has_timer, 1);
    if (timer_settime(slot->timer, 0, &period, NULL) != 0) {
        int error = errno;
        atomic_store(&slot->has_timer, 0);
        timer_delete(slot->timer);
        return error;
    }
    return 0;
}

static void stop_cpu_timer(struct thread_slot *slot) {
    if (atomic_exchange(&slot->has_timer, 0)) timer_delete(slot->timer);
}

static void release_slot(struct thread_slot *slot) {
    stop_cpu_timer(slot);
    if (slot->perf_fd >= 0) {
        ioctl(slot->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
        int fd = slot->perf_fd;
        slot->perf_fd = -1;
        close(fd);
    }
    atomic_store_explicit(&slot->tid, 0, memory_order_release);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    (void)jvmti;
    (void)jni;
    (void)thread;
    pthread_mutex_lock(&g_threads_lock);
    struct thread_slot *slot = find_slot(agent_current_tid());
    if (slot != NULL) release_slot(slot);
    pthread_mutex_unlock(&g_threads_lock);
}

static void write_snapshots(void) {
    char path[1100];
    snprintf(path, sizeof(path), "%s/snapshots.txt", g_out);
    FILE *out = fopen(path, "w");
    if (out == NULL) {
        fprintf(stderr, "oracle: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    int count = atomic_load(&g_snapshots);
    if (count > MAX_SNAPSHOTS) count = MAX_SNAPSHOTS;
    for (int i = 0; i < count; i++) {
        if (g_snapshot_offset[i] < 0) continue;
        const int32_t *snap = g_arena + g_snapshot_offset[i];
        uint64_t pc = (uint64_t)(uint32_t)snap[S_PC_HIGH] << 32 | (uint32_t)snap[S_PC_LOW];
        fprintf(out, "S %d %c %d %d %d %d %d %d %lx %u %d", i + 1, (char)snap[S_LAYER], snap[S_TID], snap[S_TAG],
                snap[S_RC], snap[S_FLAG], snap[S_POPPED], snap[S_OVERFLOW], (unsigned long)pc,
                (unsigned)snap[S_CODE_SEQUENCE], snap[S_DEPTH]);
        for (int f = 0; f < snap[S_DEPTH]; f++) {
            fprintf(out, " %d:%d", snap[SNAP_HEADER + 2 * f], snap[SNAP_HEADER + 2 * f + 1]);
        }
        const int32_t *words = snap + SNAP_HEADER + 2 * snap[S_DEPTH];
        int word_count = snap[S_CODE_WORDS] < 0 ? -snap[S_CODE_WORDS] : snap[S_CODE_WORDS];
        fprintf(out, " %s", snap[S_CODE_WORDS] < 0 ? "R+" : "R");
        for (int w = 0; w < word_count; w++) {
            uint64_t word = (uint64_t)(uint32_t)words[3 * w + 2] << 32 | (uint32_t)words[3 * w + 1];
            fprintf(out, " %d:%lx", words[3 * w], (unsigned long)word);
        }
        fputc('\n', out);
    }
    fprintf(out, "E dropped=%ld lost_signals=%ld checks=%ld\n", atomic_load(&g_dropped),
            atomic_load(&g_signals_lost), g_check_count);
    fclose(out);
}

/* Stops the signals, waits for handlers, writes the snapshots. Idempotent. */
static void finish(void) {
    if (atomic_exchange(&g_finished, 1)) return;
    pthread_mutex_lock(&g_threads_lock);
    for (int i = 0; i < MAX_THREADS; i++) {
        if (atomic_load(&g_threads[i].tid) != 0 && g_threads[i].perf_fd >= 0) {
            ioctl(g_threads[i].perf_fd, PERF_EVENT_IOC_DISABLE, 0);
        }
        if (atomic_load(&g_threads[i].tid) != 0) stop_cpu_timer(&g_threads[i]);
    }
    pthread_mutex_unlock(&g_threads_lock);
    for (int i = 0; i < 100000 && atomic_load(&g_in_handler) != 0; i++) sched_yield();
    pthread_mutex_lock(&g_check_lock);
    if (g_checks != NULL) {
        fclose(g_checks);
        g_checks = NULL;
    }
    pthread_mutex_unlock(&g_check_lock);
    compiled_code_finish();
    write_snapshots();
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni) {
    (void)jvmti;
    (void)jni;
    finish();
}

static void deallocate(void *memory) {
    if (memory != NULL) (*g_jvmti)->Deallocate(g_jvmti, (unsigned char *)memory);
}

static const struct agent_flag FLAGS[] = {
    {"layers=ac", &g_layer_c, 1},
    {"layers=b", &g_layer_c, 0},
    {"signals=perf", &g_cpu_timer, 0},
    {"signals=cpu-timer", &g_cpu_timer, 1},
};

static int accept_option(const char *item) {
    if (agent_set_flag(item, FLAGS, sizeof(FLAGS) / sizeof(FLAGS[0]))) return 1;
    if (strncmp(item, "out=", 4) != 0 || strlen(item + 4) >= sizeof(g_out)) return 0;
    strcpy(g_out, item + 4);
    return 1;
}

static jint start_agent(JavaVM *vm, char *options) {
    if (!agent_parse_options("oracle", options, accept_option)) return JNI_ERR;
    if ((*vm)->GetEnv(vm, (void **)&g_jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
    if (stackreq_find_extension_functions(g_jvmti, &g_request, &g_enable, &g_disable) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "oracle: %s not found: load libstackreq.so first\n", STACKREQ_ID_REQUEST_STACK_TRACE);
        return JNI_ERR;
    }
    jvmtiCapabilities capabilities;
    memset(&capabilities, 0, sizeof(capabilities));
    capabilities.can_get_line_numbers = 1;
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.ThreadEnd = on_thread_end;
    callbacks.VMDeath = on_vm_death;
    /* Layer (c) samples arbitrary PCs: the checker needs the JIT's scopes at them; both layers'
     * frame types are checked against the records at the stack's return addresses. */
    if (!compiled_code_start(g_jvmti, g_out, &capabilities, &callbacks)) {
        fprintf(stderr, "oracle: cannot write %s/compiled-code.txt\n", g_out);
        return JNI_ERR;
    }
    if ((*g_jvmti)->AddCapabilities(g_jvmti, &capabilities) != JVMTI_ERROR_NONE) return JNI_ERR;
    (*g_jvmti)->SetEventCallbacks(g_jvmti, &callbacks, sizeof(callbacks));
    compiled_code_enable(g_jvmti);
    (*g_jvmti)->SetEventNotificationMode(g_jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL);
    (*g_jvmti)->SetEventNotificationMode(g_jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);

    g_arena = mmap(NULL, sizeof(int32_t) * (size_t)ARENA_INTS, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (g_arena == MAP_FAILED) return JNI_ERR;
    for (int i = 0; i < MAX_SNAPSHOTS; i++) g_snapshot_offset[i] = -1;
    for (int i = 0; i < MAX_THREADS; i++) g_threads[i].perf_fd = -1;
    if (agent_install_handler(g_signal, on_signal) != 0) return JNI_ERR;
    char path[1100];
    snprintf(path, sizeof(path), "%s/jvmti-checks.txt", g_out);
    g_checks = fopen(path, "w");
    if (g_checks == NULL) {
        fprintf(stderr, "oracle: cannot write %s\n", path);
        return JNI_ERR;
    }
    return g_enable(g_jvmti) == JVMTI_ERROR_NONE ? JNI_OK : JNI_ERR;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    return start_agent(vm, options);
}

/* Tells the waiting workload threads (ShadowStack.oracleLoaded, a volatile static) that the
 * natives of OracleNative now resolve here. */
JNIEXPORT jobject JNICALL Java_io_stackreq_validation_oracle_OracleNative_attach(JNIEnv *jni, jclass cls);
JNIEXPORT void JNICALL Java_io_stackreq_validation_oracle_OracleNative_checkStack(JNIEnv *jni, jclass cls);
JNIEXPORT jint JNICALL Java_io_stackreq_validation_oracle_OracleNative_requestBiased(JNIEnv *jni, jclass cls);
JNIEXPORT void JNICALL Java_io_stackreq_validation_oracle_OracleNative_finish(JNIEnv *jni, jclass cls);

/* The JVM lists an attached agent library for native method lookup only after Agent_OnAttach has
 * returned; workload threads released by oracleLoaded could call a native before that, so the
 * natives are bound here first. */
static int register_natives(JNIEnv *jni) {
    jclass natives = (*jni)->FindClass(jni, "io/stackreq/validation/oracle/OracleNative");
    if (natives == NULL) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    JNINativeMethod methods[] = {
        {"attach", "()Ljava/nio/ByteBuffer;", (void *)Java_io_stackreq_validation_oracle_OracleNative_attach},
        {"checkStack", "()V", (void *)Java_io_stackreq_validation_oracle_OracleNative_checkStack},
        {"requestBiased", "()I", (void *)Java_io_stackreq_validation_oracle_OracleNative_requestBiased},
        {"finish", "()V", (void *)Java_io_stackreq_validation_oracle_OracleNative_finish},
    };
    if ((*jni)->RegisterNatives(jni, natives, methods, sizeof(methods) / sizeof(methods[0])) != 0) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    return 1;
}

static int set_oracle_loaded(JavaVM *vm) {
    JNIEnv *jni;
    if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK) return 0;
    if (!register_natives(jni)) return 0;
    jclass shadow_stack = (*jni)->FindClass(jni, "io/stackreq/validation/oracle/ShadowStack");
    if (shadow_stack == NULL) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    jfieldID loaded = (*jni)->GetStaticFieldID(jni, shadow_stack, "oracleLoaded", "Z");
    if (loaded == NULL) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    (*jni)->SetStaticBooleanField(jni, shadow_stack, loaded, JNI_TRUE);
    return 1;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    if (g_jvmti != NULL) {
        fprintf(stderr, "oracle: already loaded in this JVM\n");
        return JNI_ERR;
    }
    if (start_agent(vm, options) != JNI_OK) return JNI_ERR;
    /* No VMInit comes: the code compiled before the attach is replayed at once. */
    compiled_code_replay(g_jvmti);
    if (!set_oracle_loaded(vm)) {
        fprintf(stderr, "oracle: OracleNative's natives or ShadowStack.oracleLoaded not found\n");
        return JNI_ERR;
    }
    return JNI_OK;
}

/* ---- JNI natives of io.stackreq.validation.oracle.OracleNative ---- */

/* The calling thread's shadow stack (allocated on first call), and with layers=ac its perf
 * task-clock signals (signals=cpu-timer: its CPU-time timer). */
static uintptr_t current_stack_high(void) {
    pthread_attr_t attr;
    void *low = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
    int found = pthread_attr_getstack(&attr, &low, &size) == 0;
    pthread_attr_destroy(&attr);
    return found ? (uintptr_t)low + size : 0;
}

JNIEXPORT jobject JNICALL Java_io_stackreq_validation_oracle_OracleNative_attach(JNIEnv *jni, jclass cls) {
    (void)cls;
    pid_t tid = agent_current_tid();
    int timer_error = 0;
    pthread_mutex_lock(&g_threads_lock);
    struct thread_slot *slot = find_slot(tid);
    if (slot == NULL) {
        for (int i = 0; i < MAX_THREADS && slot == NULL; i++) {
            if (atomic_load(&g_threads[i].tid) == 0) slot = &g_threads[i];
        }
        if (slot != NULL) {
            if (slot->shadow == NULL) slot->shadow = calloc(SHADOW_INTS, sizeof(int32_t));
            if (slot->shadow == NULL) {
                slot = NULL;
            } else {
                memset(slot->shadow, 0, sizeof(int32_t) * SHADOW_INTS);
                slot->stack_high = current_stack_high();
                atomic_store_explicit(&slot->tid, tid, memory_order_release);
                if (g_layer_c && !atomic_load(&g_finished)) {
                    if (g_cpu_timer) {
                        timer_error = start_cpu_timer(slot, tid);
                    } else {
                        slot->perf_fd = open_task_clock(tid);
                    }
                }
            }
        }
    }
    pthread_mutex_unlock(&g_threads_lock);
    if (slot == NULL) {
        agent_throw_illegal_state(jni, "oracle: no shadow-stack slot left");
        return NULL;
    }
    if (g_layer_c && g_cpu_timer && timer_error != 0) {
        fprintf(stderr, "oracle: no CPU-time timer signals for thread %d: %s\n", (int)tid, strerror(timer_error));
    } else if (g_layer_c && !g_cpu_timer && slot->perf_fd < 0) {
        fprintf(stderr, "oracle: no task-clock signals for thread %d\n", (int)tid);
    }
    return (*jni)->NewDirectByteBuffer(jni, slot->shadow, (jlong)sizeof(int32_t) * SHADOW_INTS);
}

static void write_frame(FILE *out, jmethodID method, jlocation location) {
    int line = -1;
    jint entries = 0;
    jvmtiLineNumberEntry *table = NULL;
    if (location >= 0 && (*g_jvmti)->GetLineNumberTable(g_jvmti, method, &entries, &table) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < entries; i++) {
            if (table[i].start_location <= location) line = table[i].line_number;
        }
        deallocate(table);
    }
    fputc(' ', out);
    write_method_key(g_jvmti, out, method);
    fprintf(out, "@%d", line);
}

/* Layer (a): the shadow stack and JVMTI GetStackTrace of this thread, one record line:
 * A <tid> <tag> <flag> <popped> <overflow> <depth> id:line... | class#name(desc)@line ... (top first) */
JNIEXPORT void JNICALL Java_io_stackreq_validation_oracle_OracleNative_checkStack(JNIEnv *jni, jclass cls) {
    (void)cls;
    pid_t tid = agent_current_tid();
    struct thread_slot *slot = find_slot(tid);
    if (slot == NULL) return;
    jvmtiFrameInfo *frames = malloc(sizeof(jvmtiFrameInfo) * (MAX_FRAMES + 64));
    if (frames == NULL) return;
    jint count = 0;
    jvmtiError error = (*g_jvmti)->GetStackTrace(g_jvmti, NULL, 0, MAX_FRAMES + 64, frames, &count);
    const int32_t *shadow = slot->shadow;
    pthread_mutex_lock(&g_check_lock);
    if (g_checks != NULL) {
        fprintf(g_checks, "A %d %d %d %d %d %d", (int)tid, shadow[H_TAG], shadow[H_FLAG], shadow[H_POPPED],
                shadow[H_OVERFLOW], shadow[H_DEPTH]);
        for (int f = 0; f < shadow[H_DEPTH] && f < MAX_FRAMES; f++) {
            fprintf(g_checks, " %d:%d", shadow[H_FRAMES + 2 * f], shadow[H_FRAMES + 2 * f + 1]);
        }
        fputs(" |", g_checks);
        if (error != JVMTI_ERROR_NONE) {
            fprintf(g_checks, " !error=%d", (int)error);
        } else {
            for (jint f = 0; f < count; f++) write_frame(g_checks, frames[f].method, frames[f].location);
        }
        fputc('\n', g_checks);
        g_check_count++;
    }
    pthread_mutex_unlock(&g_check_lock);
    free(frames);
    (void)jni;
}

/* Layer (b): snapshot + RequestStackTrace(env, NULL, NULL, id), flushed before returning. */
JNIEXPORT jint JNICALL Java_io_stackreq_validation_oracle_OracleNative_requestBiased(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    pid_t tid = agent_current_tid();
    struct thread_slot *slot = find_slot(tid);
    if (slot == NULL || atomic_load(&g_finished)) return -1;
    /* One at a time: a Disable that is not the last one would not flush. */
    pthread_mutex_lock(&g_biased_lock);
    /* The stack from this function's frame up holds the return addresses of the Java frames below. */
    int id = take_snapshot(slot->shadow, 'b', tid, 0, (uintptr_t)__builtin_frame_address(0), slot->stack_high, 0);
    jvmtiError rc = JVMTI_ERROR_OUT_OF_MEMORY;
    if (id > 0) {
        rc = g_request(g_jvmti, NULL, NULL, (jlong)id);
        g_arena[g_snapshot_offset[id - 1] + S_RC] = (int32_t)rc;
        /* The last Disable writes out every accepted request: our stack is taken now, while this
         * thread waits here in native code. */
        g_disable(g_jvmti);
        g_enable(g_jvmti);
    }
    pthread_mutex_unlock(&g_biased_lock);
    return (jint)rc;
}

JNIEXPORT void JNICALL Java_io_stackreq_validation_oracle_OracleNative_finish(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    finish();
}

/* ---- the JNI-heavy workload: io.stackreq.validation.oracle.workload.JniLoop ---- */

static uint64_t burn(uint64_t x, jint rounds) {
    for (jint i = 0; i < rounds; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

JNIEXPORT jlong JNICALL Java_io_stackreq_validation_oracle_workload_JniLoop_burn(JNIEnv *jni, jclass cls, jlong seed,
                                                                                jint rounds) {
    (void)jni;
    (void)cls;
    return (jlong)burn((uint64_t)seed, rounds);
}

/* Burns, calls back JniLoop.upcall(int) (an instrumented Java method below this native frame),
 * and burns again. */
JNIEXPORT jlong JNICALL Java_io_stackreq_validation_oracle_workload_JniLoop_burnAndCallBack(JNIEnv *jni, jclass cls,
                                                                                           jlong seed, jint rounds) {
    static jmethodID upcall;
    if (upcall == NULL) upcall = (*jni)->GetStaticMethodID(jni, cls, "upcall", "(J)J");
    if (upcall == NULL) return 0;
    uint64_t x = burn((uint64_t)seed, rounds);
    jlong back = (*jni)->CallStaticLongMethod(jni, cls, upcall, (jlong)x);
    if ((*jni)->ExceptionCheck(jni)) return 0;
    return (jlong)burn((uint64_t)back, rounds);
}
