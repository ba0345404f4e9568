/*
 * A method's key as the oracle's checker matches frames by it: "pkg.Name#name(descriptor)",
 * the class named as JFR readers name it.
 */
#ifndef STACKREQ_TEST_METHOD_KEY_H
#define STACKREQ_TEST_METHOD_KEY_H

#include <jvmti.h>
#include <stdio.h>

/* Writes the key of method to out ("?" for whatever JVMTI cannot tell). */
void write_method_key(jvmtiEnv *jvmti, FILE *out, jmethodID method);

#endif
