package io.stackreq.demo;

import java.nio.ByteBuffer;

/**
 * Page faults in one method, none in the other: {@link #touchFreshMemory} allocates a new 16 MiB
 * direct buffer (fresh memory from the OS, a minor fault per page on first touch) and writes into
 * every page; {@link #computeOnly} does arithmetic on registers. A profile weighted by
 * {@code page-faults} puts nearly all faults in touchFreshMemory's total (most of them in its
 * callee {@code Unsafe.setMemory0}: the JDK zeroes a new direct buffer, which is the first
 * touch); one weighted by time shows both methods, computeOnly running each round for as long as
 * the touching took.
 *
 * <p>Usage: {@code PageToucher [seconds]} (default 3).
 */
public final class PageToucher {
    public static final String TOUCH_METHOD = "io.stackreq.demo.PageToucher.touchFreshMemory";
    public static final String COMPUTE_METHOD = "io.stackreq.demo.PageToucher.computeOnly";

    private static final int BUFFER_BYTES = 16 << 20;
    private static final int PAGE_BYTES = 4096;

    static volatile long sink;

    private PageToucher() {
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long pages = 0;
        int rounds = 0;
        while (System.nanoTime() < end) {
            long touchStart = System.nanoTime();
            pages += touchFreshMemory();
            // As long as the touching took: first touches cost what the machine makes them cost
            // (several times more on a loaded VM), and the time profile should still show both.
            computeOnly(System.nanoTime() - touchStart);
            if (++rounds % 8 == 0) {
                // Direct buffers are freed only after a collection; this keeps the process small.
                System.gc();
            }
        }
        System.out.println("PageToucher: touched " + pages + " fresh pages");
    }

    /** Returns how many pages it touched. */
    static long touchFreshMemory() {
        // Direct buffers this large are mmap'ed fresh by malloc and unmapped when collected, so
        // every touch below is a first touch of a page.
        ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
        for (int offset = 0; offset < BUFFER_BYTES; offset += PAGE_BYTES) {
            buffer.put(offset, (byte) offset);
        }
        sink += buffer.get(BUFFER_BYTES - PAGE_BYTES);
        return BUFFER_BYTES / PAGE_BYTES;
    }

    static void computeOnly(long nanos) {
        long end = System.nanoTime() + nanos;
        long accumulator = sink;
        do {
            for (int i = 0; i < 20_000; i++) {
                accumulator = accumulator * 6364136223846793005L + i;
            }
        } while (System.nanoTime() < end);
        sink = accumulator;
    }
}
