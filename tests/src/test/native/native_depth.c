/*
 * libnativedepth_fp.so / libnativedepth_nofp.so: the workload of the native-depth benchmark
 * (tests/bench, bench.NativeDepthSpin). The JNI function recurses until the thread runs DEPTH C
 * frames of this library (the JNI function and the spinning leaf included) and spins in the
 * deepest one, so every sample taken in the spin has DEPTH native frames to unwind before Java.
 * Built with and without frame pointers, as libnativechain is. The work after each recursive call
 * keeps every level a frame of its own (no tail call, no loop made of the recursion).
 */
#include <jni.h>
#include <stdint.h>
#include <time.h>

#define DEPTH_LEVEL static __attribute__((noinline, noclone))

static volatile uint64_t native_depth_sink;

static int64_t native_depth_monotonic_nanos(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* The same fixed amount of work per unit, so units per CPU second measure what a profiler leaves. */
DEPTH_LEVEL uint64_t native_depth_spin(int64_t deadline_nanos) {
    uint64_t units = 0;
    uint64_t x = 1;
    while (native_depth_monotonic_nanos() < deadline_nanos) {
        for (int i = 0; i < 4096; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            __asm__ volatile("" : "+r"(x));
        }
        units++;
    }
    native_depth_sink += x;
    return units;
}

/* levels frames of this function, then the spin. */
DEPTH_LEVEL uint64_t native_depth_descend(int levels, int64_t deadline_nanos) {
    uint64_t units = levels <= 1 ? native_depth_spin(deadline_nanos)
                                 : native_depth_descend(levels - 1, deadline_nanos);
    native_depth_sink += (uint64_t)levels;
    return units;
}

/* Spins for nanos at a depth of depth native frames (at least 3); returns the units of work done. */
JNIEXPORT jlong JNICALL Java_bench_NativeDepthSpin_spin(JNIEnv *jni, jclass cls, jint depth, jlong nanos) {
    (void)jni;
    (void)cls;
    int levels = depth < 3 ? 1 : depth - 2;
    uint64_t units = native_depth_descend(levels, native_depth_monotonic_nanos() + nanos);
    native_depth_sink += units;
    return (jlong)units;
}
