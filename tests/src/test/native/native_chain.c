/*
 * libnativechain_fp.so / libnativechain_nofp.so: the known truth for native=on stacks
 * (io.stackreq.testapp.NativeChain, NativeFramesTest). The JNI method calls a fixed chain
 * native_chain_level1 -> level2 -> level3 -> level4, and level4 spins; every sample taken in the
 * chain must show it in order, then the JNI function, then the Java native method and its caller.
 * Built twice from this file: with frame pointers and with -fomit-frame-pointer (only the
 * .eh_frame rows can unwind that one). noinline and the work after each call keep every level a
 * frame of its own (no inlining, no tail call).
 */
#include <jni.h>
#include <stdint.h>

/* static: called directly, not through the PLT, and named by the library's .symtab. */
#define CHAIN_LEVEL static __attribute__((noinline, noclone))

static volatile uint64_t native_chain_sink;

CHAIN_LEVEL uint64_t native_chain_level4(uint64_t x, int rounds) {
    for (int i = 0; i < rounds; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

CHAIN_LEVEL uint64_t native_chain_level3(uint64_t x, int rounds) {
    uint64_t result = native_chain_level4(x ^ 3, rounds);
    native_chain_sink += result;
    return result ^ native_chain_sink;
}

CHAIN_LEVEL uint64_t native_chain_level2(uint64_t x, int rounds) {
    uint64_t result = native_chain_level3(x ^ 2, rounds);
    native_chain_sink += result;
    return result ^ native_chain_sink;
}

CHAIN_LEVEL uint64_t native_chain_level1(uint64_t x, int rounds) {
    uint64_t result = native_chain_level2(x ^ 1, rounds);
    native_chain_sink += result;
    return result ^ native_chain_sink;
}

JNIEXPORT jlong JNICALL Java_io_stackreq_testapp_NativeChain_spin(JNIEnv *jni, jclass cls, jlong seed, jint rounds) {
    (void)jni;
    (void)cls;
    uint64_t result = native_chain_level1((uint64_t)seed, rounds);
    native_chain_sink += result;
    return (jlong)(result ^ native_chain_sink);
}
