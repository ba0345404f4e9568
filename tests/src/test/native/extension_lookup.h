/* How a third-party agent written for the JDK-native feature finds it: through
 * GetExtensionFunctions only (no stackreq.h, no linking). Shared by the test agents. */
#ifndef STACKREQ_TEST_EXTENSION_LOOKUP_H
#define STACKREQ_TEST_EXTENSION_LOOKUP_H

#include <jvmti.h>

#define ID_REQUEST "com.sun.hotspot.functions.RequestStackTrace"
#define ID_ENABLE "com.sun.hotspot.functions.EnableRequestStackTrace"
#define ID_DISABLE "com.sun.hotspot.functions.DisableRequestStackTrace"

typedef jvmtiError (JNICALL *RequestFn)(jvmtiEnv *, jthread *, void *, jlong);
typedef jvmtiError (JNICALL *ToggleFn)(jvmtiEnv *);

/* Looks the three ids up (each left NULL when not listed) and frees everything
 * GetExtensionFunctions returned, as the JVMTI spec asks (a crash here means the lister's
 * memory did not come from Allocate). Hidden: each agent keeps its own copy. */
__attribute__((visibility("hidden"))) jvmtiError find_extension_functions(jvmtiEnv *jvmti, RequestFn *request, ToggleFn *enable, ToggleFn *disable);

#endif
