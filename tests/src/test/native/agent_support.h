/*
 * What the test agents (requester.c, chaos.c, oracle.c) share: their signal handlers' set-up,
 * their comma-separated options, the OS thread id, and the exception their natives throw.
 */
#ifndef STACKREQ_TEST_AGENT_SUPPORT_H
#define STACKREQ_TEST_AGENT_SUPPORT_H

#include <jni.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* The calling thread's OS thread id. Async-signal-safe. */
pid_t agent_current_tid(void);

/* Installs handler for signal_number with SA_SIGINFO | SA_RESTART and nothing blocked while it
 * runs. Returns 0 or an errno value. */
int agent_install_handler(int signal_number, void (*handler)(int, siginfo_t *, void *));

/* Passes each item of the comma-separated options (NULL or empty: none) to accept, which returns
 * 0 to refuse it; every refused item is named on stderr as "AGENT: bad option 'ITEM'". Returns 1
 * when all of them were accepted. */
int agent_parse_options(const char *agent, const char *options, int (*accept)(const char *item));

/* An option that is a word alone: item exactly name sets *flag to value. */
struct agent_flag {
    const char *name;
    int *flag;
    int value;
};

/* When item is the name of one of the count flags, sets that flag and returns 1; returns 0 for any other item. */
int agent_set_flag(const char *item, const struct agent_flag *flags, size_t count);

/* All of text as a decimal number within [min, max] into *value; returns 0, *value untouched,
 * for anything else. */
int agent_parse_long(const char *text, long min, long max, long *value);

/* Leaves an IllegalStateException with message pending in jni. */
void agent_throw_illegal_state(JNIEnv *jni, const char *message);

#endif
