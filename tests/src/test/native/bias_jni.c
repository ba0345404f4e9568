/*
 * libbiasjni.so: the native half of the bias benchmark's JNI workload
 * (io.stackreq.validation.bias.BiasWorkloads). nativeBurn spends CPU in C code only, so every
 * sample taken while it runs belongs to the Java line that called it.
 */
#include <jni.h>
#include <stdint.h>

/* A serial multiply-add chain: no call, no memory traffic, and the empty asm keeps the compiler
 * from folding the loop into a closed form. */
JNIEXPORT jlong JNICALL Java_io_stackreq_validation_bias_BiasWorkloads_nativeBurn(JNIEnv *jni, jclass cls,
                                                                                 jlong seed, jint rounds) {
    (void)jni;
    (void)cls;
    uint64_t x = (uint64_t)seed;
    for (jint i = 0; i < rounds; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        __asm__ volatile("" : "+r"(x));
    }
    return (jlong)x;
}
