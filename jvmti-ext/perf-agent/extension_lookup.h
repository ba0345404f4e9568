// Finding the JEP's functions the portable way: by id in GetExtensionFunctions (stackreq.h,
// "Two ways to reach the functions", 1). No link-time dependency on libstackreq.so.
#pragma once

#include <jvmti.h>

#include "stackreq.h"

namespace stackreq_perf {

struct StackTraceFunctions {
    stackreq_RequestStackTrace request = nullptr;
    stackreq_EnableRequestStackTrace enable = nullptr;
    stackreq_DisableRequestStackTrace disable = nullptr;
};

// Fills *out. Returns JVMTI_ERROR_NONE when all three ids are listed, JVMTI_ERROR_NOT_AVAILABLE
// (with *missing = the first id not found) when some are not, or the GetExtensionFunctions
// error. Any phase, normal context.
jvmtiError find_stack_trace_functions(jvmtiEnv* env, StackTraceFunctions* out, const char** missing);

}  // namespace stackreq_perf
