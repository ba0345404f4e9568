package io.stackreq.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * Work for the garbage collector: allocates small arrays as fast as it can and keeps one in 64
 * alive for a while (up to about 20 MiB), so that each young collection has live objects to copy.
 * Run with a small heap (e.g. {@code -Xmx64m -XX:+UseG1GC}) and {@code profile --all-threads
 * --native}: much of the process's CPU time is then on the GC worker threads, in libjvm's G1 code.
 *
 * <p>Usage: {@code AllocationChurn [seconds]} (default 3).
 */
public final class AllocationChurn {
    private static final int KEPT = 20_000;

    private AllocationChurn() {
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        List<byte[]> kept = new ArrayList<>(KEPT);
        long allocated = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                byte[] array = new byte[512 + (i & 511)];
                allocated += array.length;
                if ((i & 63) == 0) {
                    if (kept.size() == KEPT) {
                        kept.clear();
                    }
                    kept.add(array);
                }
            }
        }
        System.out.println("AllocationChurn: allocated " + (allocated >> 20) + " MiB");
    }
}
