#include "method_key.h"

#include <string.h>

static void deallocate(jvmtiEnv *jvmti, void *memory) {
    if (memory != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)memory);
}

void write_method_key(jvmtiEnv *jvmti, FILE *out, jmethodID method) {
    jclass declaring = NULL;
    char *class_signature = NULL, *name = NULL, *signature = NULL;
    (*jvmti)->GetMethodDeclaringClass(jvmti, method, &declaring);
    if (declaring != NULL) (*jvmti)->GetClassSignature(jvmti, declaring, &class_signature, NULL);
    (*jvmti)->GetMethodName(jvmti, method, &name, &signature, NULL);
    /* Lpkg/Name; -> pkg.Name */
    const char *c = class_signature != NULL ? class_signature : "L?;";
    size_t length = strlen(c);
    for (size_t i = 1; i + 1 < length; i++) fputc(c[i] == '/' ? '.' : c[i], out);
    fprintf(out, "#%s%s", name != NULL ? name : "?", signature != NULL ? signature : "?");
    deallocate(jvmti, class_signature);
    deallocate(jvmti, name);
    deallocate(jvmti, signature);
}
