#define _GNU_SOURCE
#include "agent_support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

pid_t agent_current_tid(void) { return (pid_t)syscall(SYS_gettid); }

int agent_install_handler(int signal_number, void (*handler)(int, siginfo_t *, void *)) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    return sigaction(signal_number, &action, NULL) == 0 ? 0 : errno;
}

int agent_parse_options(const char *agent, const char *options, int (*accept)(const char *item)) {
    if (options == NULL || *options == '\0') return 1;
    char *copy = strdup(options);
    if (copy == NULL) return 0;
    int ok = 1;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
        if (!accept(item)) {
            fprintf(stderr, "%s: bad option '%s'\n", agent, item);
            ok = 0;
        }
    }
    free(copy);
    return ok;
}

int agent_set_flag(const char *item, const struct agent_flag *flags, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (strcmp(item, flags[i].name) == 0) {
            *flags[i].flag = flags[i].value;
            return 1;
        }
    }
    return 0;
}

int agent_parse_long(const char *text, long min, long max, long *value) {
    char *end = NULL;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed < min || parsed > max) return 0;
    *value = parsed;
    return 1;
}

void agent_throw_illegal_state(JNIEnv *jni, const char *message) {
    jclass error = (*jni)->FindClass(jni, "java/lang/IllegalStateException");
    if (error != NULL) (*jni)->ThrowNew(jni, error, message);
}
