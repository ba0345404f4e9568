/*
 * compiled-code.txt, one record per line (addresses and method ids in hex):
 *   M <method> <class.Name#name(descriptor)>      first time a method appears
 *   L <sequence> <code address> <code size> <method>  a compiled method was loaded ...
 *   P <pc> <method>:<bci> ...                        ... and one of its PCs, innermost scope first
 *   U <sequence> <code address>                      the code at that address was unloaded
 *   D <code address> <size> <name>                   VM-generated code (interpreter, stubs, adapters)
 */
#include "compiled_code.h"

#include <jvmticmlr.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "method_key.h"

#define KNOWN_METHODS (1 << 18)

static jvmtiEnv *g_jvmti;
static FILE *g_out;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint g_sequence;
/* Open addressing; only read and written under g_lock. */
static jmethodID g_known[KNOWN_METHODS];
static atomic_uintptr_t g_code_low = UINTPTR_MAX;
static atomic_uintptr_t g_code_high;

static void widen_code_range(const void *address, jint length) {
    uintptr_t low = (uintptr_t)address, high = low + (uintptr_t)length;
    uintptr_t seen = atomic_load(&g_code_low);
    while (low < seen && !atomic_compare_exchange_weak(&g_code_low, &seen, low)) {
    }
    seen = atomic_load(&g_code_high);
    while (high > seen && !atomic_compare_exchange_weak(&g_code_high, &seen, high)) {
    }
}

/* Writes an M record the first time a method is seen (also when the table is full). */
static void declare(jmethodID method) {
    uintptr_t hash = ((uintptr_t)method >> 3) * 0x9E3779B97F4A7C15ULL;
    for (unsigned probe = 0; probe < 64; probe++) {
        unsigned index = (unsigned)((hash >> 40) + probe) & (KNOWN_METHODS - 1);
        if (g_known[index] == method) return;
        if (g_known[index] == NULL) {
            g_known[index] = method;
            break;
        }
    }
    fprintf(g_out, "M %lx ", (unsigned long)(uintptr_t)method);
    write_method_key(g_jvmti, g_out, method);
    fputc('\n', g_out);
}

static void JNICALL on_load(jvmtiEnv *jvmti, jmethodID method, jint code_size, const void *code_addr,
                            jint map_length, const jvmtiAddrLocationMap *map, const void *compile_info) {
    (void)jvmti;
    (void)map_length;
    (void)map;
    widen_code_range(code_addr, code_size);
    pthread_mutex_lock(&g_lock);
    if (g_out != NULL) {
        declare(method);
        const jvmtiCompiledMethodLoadRecordHeader *record = compile_info;
        for (; record != NULL; record = record->next) {
            if (record->kind != JVMTI_CMLR_INLINE_INFO) continue;
            const jvmtiCompiledMethodLoadInlineRecord *inline_info = (const void *)record;
            for (jint p = 0; p < inline_info->numpcs; p++) {
                for (jint f = 0; f < inline_info->pcinfo[p].numstackframes; f++) {
                    declare(inline_info->pcinfo[p].methods[f]);
                }
            }
        }
        unsigned sequence = atomic_fetch_add(&g_sequence, 1) + 1;
        fprintf(g_out, "L %u %lx %d %lx\n", sequence, (unsigned long)(uintptr_t)code_addr, (int)code_size,
                (unsigned long)(uintptr_t)method);
        for (record = compile_info; record != NULL; record = record->next) {
            if (record->kind != JVMTI_CMLR_INLINE_INFO) continue;
            const jvmtiCompiledMethodLoadInlineRecord *inline_info = (const void *)record;
            for (jint p = 0; p < inline_info->numpcs; p++) {
                const PCStackInfo *info = &inline_info->pcinfo[p];
                fprintf(g_out, "P %lx", (unsigned long)(uintptr_t)info->pc);
                for (jint f = 0; f < info->numstackframes; f++) {
                    fprintf(g_out, " %lx:%d", (unsigned long)(uintptr_t)info->methods[f], (int)info->bcis[f]);
                }
                fputc('\n', g_out);
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
}

static void JNICALL on_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr) {
    (void)jvmti;
    (void)method;
    pthread_mutex_lock(&g_lock);
    if (g_out != NULL) {
        unsigned sequence = atomic_fetch_add(&g_sequence, 1) + 1;
        fprintf(g_out, "U %u %lx\n", sequence, (unsigned long)(uintptr_t)code_addr);
    }
    pthread_mutex_unlock(&g_lock);
}

static void JNICALL on_dynamic_code(jvmtiEnv *jvmti, const char *name, const void *address, jint length) {
    (void)jvmti;
    widen_code_range(address, length);
    pthread_mutex_lock(&g_lock);
    if (g_out != NULL) {
        fprintf(g_out, "D %lx %d ", (unsigned long)(uintptr_t)address, (int)length);
        for (const char *c = name; *c != '\0'; c++) fputc(*c == ' ' || *c == '\n' ? '_' : *c, g_out);
        fputc('\n', g_out);
    }
    pthread_mutex_unlock(&g_lock);
}

/* Code generated before the events were enabled (the interpreter, early stubs). */
static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    (void)jni;
    (void)thread;
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
}

int compiled_code_start(jvmtiEnv *jvmti, const char *dir, jvmtiCapabilities *capabilities,
                        jvmtiEventCallbacks *callbacks) {
    g_jvmti = jvmti;
    char path[1100];
    snprintf(path, sizeof(path), "%s/compiled-code.txt", dir);
    g_out = fopen(path, "w");
    if (g_out == NULL) return 0;
    capabilities->can_generate_compiled_method_load_events = 1;
    callbacks->CompiledMethodLoad = on_load;
    callbacks->CompiledMethodUnload = on_unload;
    callbacks->DynamicCodeGenerated = on_dynamic_code;
    callbacks->VMInit = on_vm_init;
    return 1;
}

void compiled_code_enable(jvmtiEnv *jvmti) {
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
}

void compiled_code_replay(jvmtiEnv *jvmti) {
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
}

uint32_t compiled_code_sequence(void) { return atomic_load(&g_sequence); }

int compiled_code_may_hold(uintptr_t address) {
    return address >= atomic_load(&g_code_low) && address < atomic_load(&g_code_high);
}

void compiled_code_finish(void) {
    /* The JVM posts CompiledMethodLoad late, from its service thread: code installed near the end
     * may not have been reported yet, though the last requests' stacks ran through it. Replayed
     * here, it is recorded as loaded after every snapshot (the checker drops the repeats of code
     * it already knows), so a stack word into it that was not kept is no missing record. */
    if (g_jvmti != NULL && g_out != NULL) (*g_jvmti)->GenerateEvents(g_jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
    pthread_mutex_lock(&g_lock);
    if (g_out != NULL) {
        fclose(g_out);
        g_out = NULL;
    }
    pthread_mutex_unlock(&g_lock);
}
