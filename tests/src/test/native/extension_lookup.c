#include "extension_lookup.h"

#include <string.h>

static void deallocate(jvmtiEnv *jvmti, void *memory) {
    if (memory != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)memory);
}

jvmtiError find_extension_functions(jvmtiEnv *jvmti, RequestFn *request, ToggleFn *enable, ToggleFn *disable) {
    jint count = 0;
    jvmtiExtensionFunctionInfo *list = NULL;
    jvmtiError error = (*jvmti)->GetExtensionFunctions(jvmti, &count, &list);
    if (error != JVMTI_ERROR_NONE) return error;
    for (jint i = 0; i < count; i++) {
        jvmtiExtensionFunctionInfo *info = &list[i];
        if (info->id != NULL) {
            if (strcmp(info->id, ID_REQUEST) == 0) *request = (RequestFn)info->func;
            if (strcmp(info->id, ID_ENABLE) == 0) *enable = (ToggleFn)info->func;
            if (strcmp(info->id, ID_DISABLE) == 0) *disable = (ToggleFn)info->func;
        }
        for (jint p = 0; p < info->param_count; p++) deallocate(jvmti, info->params[p].name);
        deallocate(jvmti, info->params);
        deallocate(jvmti, info->errors);
        deallocate(jvmti, info->id);
        deallocate(jvmti, info->short_description);
    }
    deallocate(jvmti, list);
    return JVMTI_ERROR_NONE;
}
