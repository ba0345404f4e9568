package bench;

import java.nio.file.Path;

import jdk.jfr.Recording;

/**
 * Recurses until the Java stack is {@code depth} frames deep (main and the spinning frame
 * included) and spins there: every sample taken meanwhile walks a stack of that depth.
 *
 * <p>Usage: {@code DeepSpin DEPTH SECONDS [RECORDING.jfr]}. The recursion and the spin loop are
 * compiled first (a warm-up at depth 4). With a recording path, a second thread starts a JFR
 * recording of {@code jdk.StackTraceRequest} only once the spinning thread is at depth, and stops
 * it (writing the file) just before the spin ends, so stackreq accepts only requests taken at
 * full depth. Prints {@code SPINNING} when the spin starts and {@code SPIN depth=.. value=..} at
 * the end.
 */
public final class DeepSpin {
    private static volatile long sink;

    static long descend(int remaining, long deadline, long seed) {
        if (remaining <= 1) return spin(deadline, seed);
        long a = seed * 6364136223846793005L + 1442695040888963407L;
        long b = a ^ (a >>> 29);
        long result = descend(remaining - 1, deadline, b);
        return result + (b & 1);
    }

    static long spin(long deadline, long seed) {
        long x = seed | 1;
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 20000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            sink = x;
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        int depth = Integer.parseInt(args[0]);
        double seconds = Double.parseDouble(args[1]);
        Path recordingPath = args.length > 2 ? Path.of(args[2]) : null;
        long warm = 0;
        for (int i = 0; i < 30000; i++) warm += descend(4, 0, i);
        spin(System.nanoTime() + 200_000_000L, warm);
        long spinNanos = (long) (seconds * 1e9);
        long deadline = System.nanoTime() + spinNanos;
        Thread recorder = null;
        if (recordingPath != null) {
            recorder = new Thread(() -> record(recordingPath, deadline), "bench recorder");
            recorder.setDaemon(true);
            recorder.start();
        }
        System.out.println("SPINNING depth=" + depth);
        long value = descend(depth - 1, deadline, 2);
        if (recorder != null) recorder.join();
        System.out.println("SPIN depth=" + depth + " seconds=" + seconds + " value=" + value);
    }

    // Starts 300 ms after the spin began (the descent takes microseconds) and stops 200 ms before it ends.
    static void record(Path path, long deadline) {
        try {
            Thread.sleep(300);
            try (Recording recording = new Recording()) {
                recording.enable("jdk.StackTraceRequest");
                recording.setDestination(path);
                recording.start();
                long left = (deadline - System.nanoTime()) / 1_000_000 - 200;
                if (left > 0) Thread.sleep(left);
                recording.stop();
            }
        } catch (Exception e) {
            System.out.println("RECORDING-FAILED " + e);
        }
    }
}
