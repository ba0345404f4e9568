/*
 * The JIT's debug information, recorded for the correctness oracle: every compiled method's
 * code range and, for each PC the JIT recorded, the inlined scopes it attributes to that PC
 * (JVMTI CompiledMethodLoad with its inline records). The Java checker uses it to tell what
 * the JVM itself says the interrupted PC executes.
 */
#ifndef STACKREQ_TEST_COMPILED_CODE_H
#define STACKREQ_TEST_COMPILED_CODE_H

#include <jvmti.h>
#include <stdint.h>

/* Adds the capability and callbacks to what the agent sets up; call from Agent_OnLoad before
 * SetEventCallbacks. Returns 0 when the file "<dir>/compiled-code.txt" cannot be written. */
int compiled_code_start(jvmtiEnv *jvmti, const char *dir, jvmtiCapabilities *capabilities,
                        jvmtiEventCallbacks *callbacks);

/* Call after SetEventCallbacks: turns the events on. */
void compiled_code_enable(jvmtiEnv *jvmti);

/* In a running JVM (Agent_OnAttach, after compiled_code_enable): the events for the stubs and
 * the methods compiled before the attach. */
void compiled_code_replay(jvmtiEnv *jvmti);

/* How many load and unload events have been recorded so far. Async-signal-safe. */
uint32_t compiled_code_sequence(void);

/* Async-signal-safe: whether address lies between the lowest and the highest code address the
 * JVM has reported (compiled methods and VM-generated code), i.e. may be a return address. */
int compiled_code_may_hold(uintptr_t address);

/* In the live phase: replays the compiled methods the JVM still holds (recorded as loaded now;
 * the ones it had not reported yet are the point), then flushes and closes the file; later
 * events are ignored. */
void compiled_code_finish(void);

#endif
