/* stackreq.h's lookup compiled as C, as the C test agents and C profilers compile it. */
#include "stackreq.h"

jvmtiError extension_lookup_from_c(jvmtiEnv* env, stackreq_RequestStackTrace* request,
                                   stackreq_EnableRequestStackTrace* enable,
                                   stackreq_DisableRequestStackTrace* disable) {
    return stackreq_find_extension_functions(env, request, enable, disable);
}
