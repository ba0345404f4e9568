package io.stackreq.testapp;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Loops that keep a test app's thread busy while {@code running} holds, each in its own state when a signal lands:
 * compiled Java arithmetic, or allocation (runtime calls, GC pressure); and the GC count they drive up.
 */
public final class BusyLoops {
    static volatile long sink;
    static volatile Object retained;

    private BusyLoops() {
    }

    public static void burn(BooleanSupplier running) {
        long x = 7;
        while (running.getAsBoolean()) {
            for (int i = 0; i < 20_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        sink += x;
    }

    public static void allocate(BooleanSupplier running) {
        Object[] keep = new Object[512];
        int n = 0;
        while (running.getAsBoolean()) {
            for (int i = 0; i < 200; i++) {
                List<long[]> list = new ArrayList<>();
                for (int j = 0; j < 16; j++) {
                    list.add(new long[32 + (i & 127)]);
                }
                keep[n++ & 511] = list;
            }
            retained = keep[n & 511];
        }
    }

    /** Collections so far, of every collector. */
    public static long gcCount() {
        long count = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
        }
        return count;
    }
}
