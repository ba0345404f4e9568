/*
 * libpr_agent.so: a profiling agent written the way openjdk/jdk pull request 31059's current
 * revision is used. It looks up com.sun.hotspot.functions.RequestStackTrace alone with
 * GetExtensionFunctions (its own loop, not stackreq.h), declares it with the thread passed BY VALUE,
 * never calls an Enable function, and passes (jthread)NULL from its signal handler, as the PR's own
 * test agent does. io.stackreq.testapp.PrAgent is its JNI face.
 *
 * Besides requests from JNI (by value, and for comparison through a jthread* as the JEP text has
 * it), it requests from a JVMTI callback: at ThreadStart of a thread whose name starts with
 * "pr-callback", once with the callback's thread by value and once by pointer.
 */
#define _GNU_SOURCE
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "agent_support.h"

typedef jvmtiError (JNICALL *RequestByValue)(jvmtiEnv *env, jthread thread, void *ucontext, jlong user_data);
typedef jvmtiError (JNICALL *RequestByPointer)(jvmtiEnv *env, jthread *thread, void *ucontext, jlong user_data);

static jvmtiEnv *g_jvmti;
static jvmtiExtensionFunction g_request;

/* The self-signal: the handler requests with the id the caller set, and leaves the code. */
static const int kSignal = SIGPROF;
static atomic_long g_signal_user_data;
static atomic_int g_signal_result;
static pthread_once_t g_handler_once = PTHREAD_ONCE_INIT;
static int g_handler_error;

/* ThreadStart requests: the last pr-callback thread's two codes, -1 until one started. */
static atomic_int g_callback_by_value = -1;
static atomic_int g_callback_by_pointer = -1;
static atomic_long g_callback_user_data;

static void on_signal(int sig, siginfo_t *info, void *ucontext) {
    (void)sig;
    (void)info;
    RequestByValue request = (RequestByValue)g_request;
    atomic_store(&g_signal_result, (int)request(g_jvmti, (jthread)NULL, ucontext, atomic_load(&g_signal_user_data)));
}

static void install_handler(void) { g_handler_error = agent_install_handler(kSignal, on_signal); }

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    (void)jni;
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof(info));
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE || info.name == NULL) return;
    int ours = strncmp(info.name, "pr-callback", 11) == 0;
    (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
    if (!ours) return;
    long id = atomic_load(&g_callback_user_data);
    atomic_store(&g_callback_by_value, (int)((RequestByValue)g_request)(jvmti, thread, NULL, id));
    atomic_store(&g_callback_by_pointer, (int)((RequestByPointer)g_request)(jvmti, &thread, NULL, id + 1));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    if ((*vm)->GetEnv(vm, (void **)&g_jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
    jint count = 0;
    jvmtiExtensionFunctionInfo *list = NULL;
    if ((*g_jvmti)->GetExtensionFunctions(g_jvmti, &count, &list) != JVMTI_ERROR_NONE) return JNI_ERR;
    for (jint i = 0; i < count; i++) {
        if (strcmp(list[i].id, "com.sun.hotspot.functions.RequestStackTrace") == 0) g_request = list[i].func;
        for (jint p = 0; p < list[i].param_count; p++) (*g_jvmti)->Deallocate(g_jvmti, (unsigned char *)list[i].params[p].name);
        (*g_jvmti)->Deallocate(g_jvmti, (unsigned char *)list[i].params);
        (*g_jvmti)->Deallocate(g_jvmti, (unsigned char *)list[i].errors);
        (*g_jvmti)->Deallocate(g_jvmti, (unsigned char *)list[i].id);
        (*g_jvmti)->Deallocate(g_jvmti, (unsigned char *)list[i].short_description);
    }
    (*g_jvmti)->Deallocate(g_jvmti, (unsigned char *)list);
    if (g_request == NULL) {
        fprintf(stderr, "pr_agent: com.sun.hotspot.functions.RequestStackTrace is not listed\n");
        return JNI_ERR;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.ThreadStart = on_thread_start;
    if ((*g_jvmti)->SetEventCallbacks(g_jvmti, &callbacks, sizeof(callbacks)) != JVMTI_ERROR_NONE ||
        (*g_jvmti)->SetEventNotificationMode(g_jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL) != JVMTI_ERROR_NONE) {
        return JNI_ERR;
    }
    return JNI_OK;
}

/* ---- JNI natives of io.stackreq.testapp.PrAgent ---- */

JNIEXPORT jint JNICALL Java_io_stackreq_testapp_PrAgent_request(JNIEnv *jni, jclass cls, jobject thread,
                                                                jlong user_data) {
    (void)jni;
    (void)cls;
    return (jint)((RequestByValue)g_request)(g_jvmti, (jthread)thread, NULL, user_data);
}

JNIEXPORT jint JNICALL Java_io_stackreq_testapp_PrAgent_requestByPointer(JNIEnv *jni, jclass cls, jobject thread,
                                                                         jlong user_data) {
    (void)jni;
    (void)cls;
    jthread variable = (jthread)thread;
    return (jint)((RequestByPointer)g_request)(g_jvmti, &variable, NULL, user_data);
}

/* A global reference by value: a reference kind other than JNI's local ones. */
JNIEXPORT jint JNICALL Java_io_stackreq_testapp_PrAgent_requestGlobal(JNIEnv *jni, jclass cls, jobject thread,
                                                                      jlong user_data) {
    (void)cls;
    jobject global = (*jni)->NewGlobalRef(jni, thread);
    jint rc = (jint)((RequestByValue)g_request)(g_jvmti, (jthread)global, NULL, user_data);
    (*jni)->DeleteGlobalRef(jni, global);
    return rc;
}

/* A pointer into memory that is no reference and not readable, and one to a word that is no reference. */
JNIEXPORT jint JNICALL Java_io_stackreq_testapp_PrAgent_requestGarbage(JNIEnv *jni, jclass cls, jint kind,
                                                                       jlong user_data) {
    (void)jni;
    (void)cls;
    static long not_a_reference = 0x12345678;
    void *argument = kind == 0 ? (void *)16 : (void *)&not_a_reference;
    return (jint)((RequestByValue)g_request)(g_jvmti, (jthread)argument, NULL, user_data);
}

/* Signals the calling thread; its handler requests with (jthread)NULL and its ucontext. The code, or -errno. */
JNIEXPORT jint JNICALL Java_io_stackreq_testapp_PrAgent_signalSelf(JNIEnv *jni, jclass cls, jlong user_data) {
    (void)jni;
    (void)cls;
    pthread_once(&g_handler_once, install_handler);
    if (g_handler_error != 0) return -g_handler_error;
    atomic_store(&g_signal_user_data, user_data);
    atomic_store(&g_signal_result, -1);
    int error = pthread_kill(pthread_self(), kSignal);
    return error != 0 ? -error : atomic_load(&g_signal_result);
}

JNIEXPORT void JNICALL Java_io_stackreq_testapp_PrAgent_setCallbackUserData(JNIEnv *jni, jclass cls, jlong user_data) {
    (void)jni;
    (void)cls;
    atomic_store(&g_callback_user_data, user_data);
}

JNIEXPORT jint JNICALL Java_io_stackreq_testapp_PrAgent_callbackByValue(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    return atomic_load(&g_callback_by_value);
}

JNIEXPORT jint JNICALL Java_io_stackreq_testapp_PrAgent_callbackByPointer(JNIEnv *jni, jclass cls) {
    (void)jni;
    (void)cls;
    return atomic_load(&g_callback_by_pointer);
}
