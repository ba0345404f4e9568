package bench;

import java.util.ArrayList;
import java.util.List;

import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;

/**
 * The soak's workload: four threads of real work (Jackson, Lucene, H2, Jackson: many distinct
 * stacks, JIT activity and garbage) for a given time, while a fifth thread asks JFR for a new
 * chunk of its disk recording every {@code ROTATE_SECONDS}.
 *
 * <p>JFR has no time-based rotation: {@code -XX:FlightRecorderOptions:maxchunksize} and {@code
 * jcmd JFR.configure maxchunksize=} rotate by size only. What rotates a running disk recording on
 * demand, on JDK 17 and 25 alike, is a dump: {@code FlightRecorder.takeSnapshot()} (public API)
 * finishes the current chunk of every running disk recording so that the snapshot can hold it
 * ({@code PlatformRecorder.fillWithRecordedData}, which calls {@code rotateDisk()}, as
 * {@code jcmd JFR.dump} does); the snapshot itself is closed at once, so it writes nothing.
 *
 * <p>Usage: {@code SoakApp SECONDS ROTATE_SECONDS}. Prints {@code SOAK-START nanos=..}
 * ({@code System.nanoTime()}, CLOCK_MONOTONIC: the perf agent's clock), {@code ROTATED n=..
 * nanos=..} after each rotation and {@code SOAK-END rounds=.. rotations=..} at the end.
 */
public final class SoakApp {
    private static volatile boolean stop;

    public static void main(String[] args) throws Exception {
        double seconds = Double.parseDouble(args[0]);
        long rotateMillis = (long) (Double.parseDouble(args[1]) * 1000);
        String[] names = {"jackson", "lucene", "h2", "jackson"};
        long[] rounds = new long[names.length];
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        long start = System.nanoTime();
        System.out.println("SOAK-START nanos=" + start + " epochMillis=" + System.currentTimeMillis());
        for (int i = 0; i < names.length; i++) {
            int index = i;
            Thread thread = new Thread(() -> {
                try {
                    io.stackreq.apps.App app = io.stackreq.apps.App.named(names[index]);
                    app.setUp();
                    long sink = 0;
                    try (io.stackreq.apps.App.Worker worker = app.worker(0)) {
                        while (!stop) sink += worker.round((int) rounds[index]++);
                    }
                    app.tearDown();
                    if (sink == 42) System.out.println("(unlikely)");
                } catch (Throwable t) {
                    synchronized (failures) {
                        failures.add(t);
                    }
                }
            }, "soak-" + names[i] + "-" + i);
            threads.add(thread);
            thread.start();
        }
        long deadline = start + (long) (seconds * 1e9);
        int rotations = 0;
        long next = start + rotateMillis * 1_000_000L;
        while (true) {
            long now = System.nanoTime();
            if (now >= deadline) break;
            long wait = Math.min(next, deadline) - now;
            Thread.sleep(Math.max(1, wait / 1_000_000));
            if (System.nanoTime() >= next && System.nanoTime() < deadline) {
                try (Recording snapshot = FlightRecorder.getFlightRecorder().takeSnapshot()) {
                    rotations++;
                }
                System.out.println("ROTATED n=" + rotations + " nanos=" + System.nanoTime());
                next += rotateMillis * 1_000_000L;
            }
        }
        stop = true;
        for (Thread thread : threads) thread.join();
        if (!failures.isEmpty()) {
            failures.get(0).printStackTrace();
            System.exit(1);
        }
        long total = 0;
        for (long r : rounds) total += r;
        System.out.println("SOAK-END rounds=" + total + " rotations=" + rotations);
    }
}
