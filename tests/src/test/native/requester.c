/*
 * librequester.so: a test profiling agent written against the JDK-native feature only.
 *
 * It finds com.sun.hotspot.functions.{Enable,Disable,}RequestStackTrace through
 * GetExtensionFunctions (stackreq_find_request_functions, header-only: no link to
 * libstackreq.so), exactly as a third-party profiler would, and gives the Java class io.stackreq.testapp.Requester:
 *  - enable/disable, and requests from normal code (JNI: ucontext NULL, any thread object);
 *  - per-thread CPU timers whose signal handler calls RequestStackTrace(env, NULL, ucontext, id)
 *    with id from a global counter, recording (id, tid, return code) in preallocated arrays.
 *
 * Agent options (comma separated): "optional" = load even when the ids are not listed
 * (Requester.available() then says false); "signal=N" = timer signal number (default SIGPROF);
 * "onload-request" = call RequestStackTrace(env, NULL, NULL, 0) in Agent_OnLoad and keep the
 * result for Requester.onLoadResult() (-1 when not called); "null-ucontext" = the timer
 * handlers pass NULL for the ucontext (the biased path, from a signal handler);
 * "thread-end-requests" = at the ThreadEnd of each thread named "ending-N" (this environment is
 * younger than stackreq's, so its ThreadEnd runs after stackreq's, as a profiler's would) request
 * once from the callback (ucontext NULL) and once from the timer signal sent to the thread itself,
 * counting the return codes apart for Requester.threadEndErrorCounts().
 * Loaded into a running JVM (Agent_OnAttach, after libstackreq.so) it starts the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent_support.h"
#include "stackreq.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif
#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif

#define MAX_IDS (1 << 20) /* ids handed out by timer handlers; more are counted as overflow */
#define RC_SLOTS 256      /* every jvmtiError value is below 256 */
#define MAX_TIMERS 256

static jvmtiEnv *g_jvmti;
static stackreq_RequestStackTrace g_request;
static stackreq_EnableRequestStackTrace g_enable;
static stackreq_DisableRequestStackTrace g_disable;
static stackreq_InitializeRequestStackTrace g_initialize;
static int g_signal = SIGPROF;
static int g_optional;
static int g_onload_request;
static int g_null_ucontext; /* option null-ucontext: timer handlers request without their ucontext */
static jint g_onload_result = -1;

/* Written by signal handlers: lock-free atomics only. g_result[id] = rc + 1 (0 = none). */
static _Atomic int32_t g_result[MAX_IDS];
static _Atomic int32_t g_tid[MAX_IDS];
static atomic_long g_next_id;
static atomic_long g_rc_count[RC_SLOTS];
static atomic_long g_overflow;
static atomic_int g_in_handler;
static int g_thread_end_requests;
static atomic_long g_thread_end_rc_count[RC_SLOTS];
/* initial-exec: read in the signal handler, where lazy TLS allocation is not safe. */
static __thread __attribute__((tls_model("initial-exec"))) int t_in_thread_end;

static void count_rc(atomic_long *counts, jvmtiError rc) {
    atomic_fetch_add(&counts[(unsigned)rc < RC_SLOTS ? (unsigned)rc : RC_SLOTS - 1], 1);
}

/* Normal context only. */
struct thread_timer {
    pid_t tid;
    timer_t timer;
};
static struct thread_timer g_timers[MAX_TIMERS];
static int g_timer_count;
static pthread_mutex_t g_timers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_handler_once = PTHREAD_ONCE_INIT;
static int g_handler_error;

static void on_timer(int sig, siginfo_t *info, void *ucontext) {
    (void)sig;
    (void)info;
    int saved_errno = errno;
    atomic_fetch_add(&g_in_handler, 1);
    long id = atomic_fetch_add(&g_next_id, 1) + 1;
    jvmtiError rc = g_request(g_jvmti, NULL, g_null_ucontext ? NULL : ucontext, (jlong)id);
    count_rc(t_in_thread_end ? g_thread_end_rc_count : g_rc_count, rc);
    if (id < MAX_IDS) {
        atomic_store(&g_tid[id], (int32_t)agent_current_tid());
        atomic_store(&g_result[id], (int32_t)rc + 1);
    } else {
        atomic_fetch_add(&g_overflow, 1);
    }
    atomic_fetch_sub(&g_in_handler, 1);
    errno = saved_errno;
}

static void install_handler(void) { g_handler_error = agent_install_handler(g_signal, on_timer); }

/* Only the test's own threads ("ending-N"): the JVM's threads may end before the first recording
 * (JDK 11's JFR starts and ends one as it starts), where the answer is WRONG_PHASE. */
static int is_ending_thread(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof(info));
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) return 0;
    int ending = info.name != NULL && strncmp(info.name, "ending-", 7) == 0;
    (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
    if (info.thread_group != NULL) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader != NULL) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    return ending;
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    if (!is_ending_thread(jvmti, jni, thread)) return;
    t_in_thread_end = 1;
    count_rc(g_thread_end_rc_count, g_request(g_jvmti, NULL, NULL, atomic_fetch_add(&g_next_id, 1) + 1));
    if (g_handler_error == 0) pthread_kill(pthread_self(), g_signal);
    t_in_thread_end = 0;
}

static int enable_thread_end_requests(void) {
    pthread_once(&g_handler_once, install_handler);
    if (g_handler_error != 0) return 0;
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.ThreadEnd = on_thread_end;
    return (*g_jvmti)->SetEventCallbacks(g_jvmti, &callbacks, sizeof(callbacks)) == JVMTI_ERROR_NONE &&
           (*g_jvmti)->SetEventNotificationMode(g_jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL) ==
               JVMTI_ERROR_NONE;
}

static const struct agent_flag FLAGS[] = {
    {"optional", &g_optional, 1},
    {"onload-request", &g_onload_request, 1},
    {"null-ucontext", &g_null_ucontext, 1},
    {"thread-end-requests", &g_thread_end_requests, 1},
};

static int accept_option(const char *item) {
    long value = 0;
    if (agent_set_flag(item, FLAGS, sizeof(FLAGS) / sizeof(FLAGS[0]))) return 1;
    if (strncmp(item, "signal=", 7) != 0 || !agent_parse_long(item + 7, 1, NSIG - 1, &value)) return 0;
    g_signal = (int)value;
    return 1;
}

static jint start_agent(JavaVM *vm, char *options) {
    if (!agent_parse_options("requester", options, accept_option)) {
        fprintf(stderr, "requester: malformed options '%s'\n", options);
        return JNI_ERR;
    }
    if ((*vm)->GetEnv(vm, (void **)&g_jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        fprintf(stderr, "requester: no JVMTI\n");
        return JNI_ERR;
    }
    stackreq_request_functions found;
    jvmtiError error = stackreq_find_request_functions(g_jvmti, &found);
    g_request = found.request_stack_trace;
    g_enable = found.enable_request_stack_trace;
    g_disable = found.disable_request_stack_trace;
    g_initialize = found.initialize_request_stack_trace;
    if (error != JVMTI_ERROR_NONE && error != JVMTI_ERROR_NOT_AVAILABLE) {
        fprintf(stderr, "requester: GetExtensionFunctions failed: %d\n", (int)error);
        return JNI_ERR;
    }
    int complete = error == JVMTI_ERROR_NONE;
    if (!complete && !g_optional) {
        fprintf(stderr, "requester: GetExtensionFunctions does not list %s (found request=%d enable=%d disable=%d)\n",
                STACKREQ_ID_REQUEST_STACK_TRACE, g_request != NULL, g_enable != NULL, g_disable != NULL);
        return JNI_ERR;
    }
    if (!complete) g_request = NULL;
    if (g_request != NULL && g_onload_request) g_onload_result = (jint)g_request(g_jvmti, NULL, NULL, 0);
    if (g_request != NULL && g_thread_end_requests && !enable_thread_end_requests()) {
        fprintf(stderr, "requester: cannot request at ThreadEnd (signal handler error %d)\n", g_handler_error);
        return JNI_ERR;
    }
    return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    return start_agent(vm, options);
}

/* jcmd PID JVMTI.agent_load librequester.so, after libstackreq.so: as at startup. The JVM finds
 * the Requester natives in this library once Agent_OnAttach has returned. */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    if (g_jvmti != NULL) {
        fprintf(stderr, "requester: already loaded in this JVM\n");
        return JNI_ERR;
    }
    return start_agent(vm, options);
}

/* ---- JNI natives of io.stackreq.testapp.Requester (found by name in this agent library) ---- */

static jint unavailable(JNIEnv *jni) {
    agent_throw_illegal_state(jni, "RequestStackTrace was not found by GetExtensionFunctions");
    return -1;
}

JNIEXPORT jboolean JNICALL Java_io_stackreq_testapp_Requester_available(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    return g_request != NULL ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_onLoadResult(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    return g_onload_result;
}

JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_enable(JNIEnv *jni, jclass cls) {
    (void)cls;
    if (g_request == NULL) return unavailable(jni);
    return (jint)g_enable(g_jvmti);
}

JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_initialize(JNIEnv *jni, jclass cls) {
    (void)cls;
    if (g_request == NULL) return unavailable(jni);
    if (g_initialize == NULL) {
        agent_throw_illegal_state(jni, "InitializeRequestStackTrace was not found by GetExtensionFunctions");
        return -1;
    }
    return (jint)g_initialize(g_jvmti);
}

JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_disable(JNIEnv *jni, jclass cls) {
    (void)cls;
    if (g_request == NULL) return unavailable(jni);
    return (jint)g_disable(g_jvmti);
}

/* thread == NULL when t is null; ucontext is always NULL (a request from normal code). */
JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_request(JNIEnv *jni, jclass cls, jthread t,
                                                                  jlong user_data) {
    (void)cls;
    if (g_request == NULL) return unavailable(jni);
    return (jint)g_request(g_jvmti, t == NULL ? NULL : &t, NULL, user_data);
}

/* Passes any object as the jthread, to provoke INVALID_THREAD. */
JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_requestObject(JNIEnv *jni, jclass cls, jobject o,
                                                                        jlong user_data) {
    (void)cls;
    if (g_request == NULL) return unavailable(jni);
    jthread as_thread = (jthread)o;
    return (jint)g_request(g_jvmti, &as_thread, NULL, user_data);
}

JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_currentTid(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    return (jint)agent_current_tid();
}

/* Arms a timer on the calling thread's CPU clock; returns 0 or an errno value. */
JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_startTimer(JNIEnv *jni, jclass cls, jint interval_us) {
    (void)cls;
    if (g_request == NULL) return unavailable(jni);
    if (interval_us <= 0) return EINVAL;
    pthread_once(&g_handler_once, install_handler);
    if (g_handler_error != 0) return g_handler_error;
    pid_t tid = agent_current_tid();
    pthread_mutex_lock(&g_timers_lock);
    int result = 0;
    int found = 0;
    for (int i = 0; i < g_timer_count; i++) found |= g_timers[i].tid == tid;
    if (found) {
        result = EEXIST;
    } else if (g_timer_count == MAX_TIMERS) {
        result = ENOSPC;
    } else {
        struct sigevent event;
        memset(&event, 0, sizeof(event));
        event.sigev_notify = SIGEV_THREAD_ID;
        event.sigev_signo = g_signal;
        event.sigev_notify_thread_id = tid;
        timer_t timer;
        if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &timer) != 0) {
            result = errno;
        } else {
            struct itimerspec spec;
            spec.it_interval.tv_sec = interval_us / 1000000;
            spec.it_interval.tv_nsec = (long)(interval_us % 1000000) * 1000;
            spec.it_value = spec.it_interval;
            if (timer_settime(timer, 0, &spec, NULL) != 0) {
                result = errno;
                timer_delete(timer);
            } else {
                g_timers[g_timer_count].tid = tid;
                g_timers[g_timer_count].timer = timer;
                g_timer_count++;
            }
        }
    }
    pthread_mutex_unlock(&g_timers_lock);
    return result;
}

/* Sends the timer signal to the calling thread once, so that the handler's request walks the
 * stack at this exact point (this native's caller on top); returns 0 or an errno value. */
JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_signalSelf(JNIEnv *jni, jclass cls) {
    (void)cls;
    if (g_request == NULL) return unavailable(jni);
    pthread_once(&g_handler_once, install_handler);
    if (g_handler_error != 0) return g_handler_error;
    return pthread_kill(pthread_self(), g_signal);
}

static void on_other_signal(int sig, siginfo_t *info, void *ucontext) {
    (void)sig;
    (void)info;
    (void)ucontext;
}

static pthread_once_t g_other_once = PTHREAD_ONCE_INIT;
static int g_other_error;

static void install_other_handler(void) { g_other_error = agent_install_handler(SIGURG, on_other_signal); }

/* Sends SIGURG (handled by a no-op handler) to thread tid of this process: stands in for another
 * agent's signals, as JFR's sampler suspends threads with a signal. Returns 0 or an errno value. */
JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_poke(JNIEnv *jni, jclass cls, jint tid) {
    (void)jni;
    (void)cls;
    pthread_once(&g_other_once, install_other_handler);
    if (g_other_error != 0) return g_other_error;
    return syscall(SYS_tgkill, getpid(), (pid_t)tid, SIGURG) == 0 ? 0 : errno;
}

/* Deletes the calling thread's timer; returns 0, or ENOENT when it had none. A signal already
 * pending for this thread is delivered before this native returns to Java. */
JNIEXPORT jint JNICALL Java_io_stackreq_testapp_Requester_stopTimer(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    pid_t tid = agent_current_tid();
    int result = ENOENT;
    pthread_mutex_lock(&g_timers_lock);
    for (int i = 0; i < g_timer_count; i++) {
        if (g_timers[i].tid != tid) continue;
        result = timer_delete(g_timers[i].timer) == 0 ? 0 : errno;
        g_timers[i] = g_timers[--g_timer_count];
        break;
    }
    pthread_mutex_unlock(&g_timers_lock);
    return result;
}

static void wait_for_handlers(void) {
    while (atomic_load(&g_in_handler) != 0) sched_yield();
}

static jlong issued_ids(void) {
    long issued = atomic_load(&g_next_id);
    return issued < MAX_IDS - 1 ? issued : MAX_IDS - 1;
}

/* Ids (1..) whose timer request returned JVMTI_ERROR_NONE, ascending. Call after stopping. */
JNIEXPORT jlongArray JNICALL Java_io_stackreq_testapp_Requester_acceptedIds(JNIEnv *jni, jclass cls) {
    (void)cls;
    wait_for_handlers();
    jlong issued = issued_ids();
    jsize count = 0;
    for (jlong id = 1; id <= issued; id++) count += atomic_load(&g_result[id]) == 1;
    jlongArray out = (*jni)->NewLongArray(jni, count);
    if (out == NULL) return NULL;
    jlong *ids = (*jni)->GetLongArrayElements(jni, out, NULL);
    jsize n = 0;
    for (jlong id = 1; id <= issued && n < count; id++) {
        if (atomic_load(&g_result[id]) == 1) ids[n++] = id;
    }
    (*jni)->ReleaseLongArrayElements(jni, out, ids, 0);
    return out;
}

/* OS thread id of the handler that issued each id, index = id (0 unused). */
JNIEXPORT jintArray JNICALL Java_io_stackreq_testapp_Requester_idTids(JNIEnv *jni, jclass cls) {
    (void)cls;
    wait_for_handlers();
    jlong issued = issued_ids();
    jintArray out = (*jni)->NewIntArray(jni, (jsize)(issued + 1));
    if (out == NULL) return NULL;
    jint *tids = (*jni)->GetIntArrayElements(jni, out, NULL);
    tids[0] = 0;
    for (jlong id = 1; id <= issued; id++) tids[id] = atomic_load(&g_tid[id]);
    (*jni)->ReleaseIntArrayElements(jni, out, tids, 0);
    return out;
}

/* Number of timer requests per return code, index = jvmtiError (255 = 255 and above). */
static jlongArray rc_counts_array(JNIEnv *jni, atomic_long *source) {
    wait_for_handlers();
    jlongArray out = (*jni)->NewLongArray(jni, RC_SLOTS);
    if (out == NULL) return NULL;
    jlong counts[RC_SLOTS];
    for (int i = 0; i < RC_SLOTS; i++) counts[i] = atomic_load(&source[i]);
    (*jni)->SetLongArrayRegion(jni, out, 0, RC_SLOTS, counts);
    return out;
}

JNIEXPORT jlongArray JNICALL Java_io_stackreq_testapp_Requester_errorCounts(JNIEnv *jni, jclass cls) {
    (void)cls;
    return rc_counts_array(jni, g_rc_count);
}

/* Requests made at ThreadEnd (option thread-end-requests) per return code, as errorCounts. */
JNIEXPORT jlongArray JNICALL Java_io_stackreq_testapp_Requester_threadEndErrorCounts(JNIEnv *jni, jclass cls) {
    (void)cls;
    return rc_counts_array(jni, g_thread_end_rc_count);
}

/* Timer requests issued so far, and how many of them did not fit the id arrays. */
JNIEXPORT jlong JNICALL Java_io_stackreq_testapp_Requester_issued(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    return (jlong)atomic_load(&g_next_id);
}

JNIEXPORT jlong JNICALL Java_io_stackreq_testapp_Requester_overflow(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    return (jlong)atomic_load(&g_overflow);
}
