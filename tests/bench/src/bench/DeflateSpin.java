package bench;

import java.nio.file.Path;
import java.util.Random;
import java.util.zip.Deflater;

/**
 * Compresses a 1 MiB buffer at level 9 with {@link Deflater} until the time is up: nearly all of
 * the thread's CPU is in the system's zlib (C code without frame pointers, reached through the
 * JDK's libzip), so with native=on every request unwinds several C frames with the libraries'
 * unwind rows.
 *
 * <p>Usage: {@code DeflateSpin SECONDS [RECORDING.jfr]}: as {@link DeepSpin}, a recording of
 * jdk.StackTraceRequest runs while the thread compresses. Prints {@code SPIN bytes=..} at the end.
 */
public final class DeflateSpin {
    public static void main(String[] args) throws Exception {
        double seconds = Double.parseDouble(args[0]);
        Path recordingPath = args.length > 1 ? Path.of(args[1]) : null;
        byte[] input = new byte[1 << 20];
        Random random = new Random(42);
        for (int i = 0; i < input.length; i++) input[i] = (byte) ('a' + random.nextInt(8) + (i % 64 == 0 ? 100 : 0));
        byte[] output = new byte[input.length + 1024];
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        Thread recorder = null;
        if (recordingPath != null) {
            recorder = new Thread(() -> DeepSpin.record(recordingPath, deadline), "bench recorder");
            recorder.setDaemon(true);
            recorder.start();
        }
        System.out.println("SPINNING deflate");
        long bytes = 0;
        Deflater deflater = new Deflater(9);
        while (System.nanoTime() < deadline) {
            deflater.reset();
            deflater.setInput(input);
            deflater.finish();
            while (!deflater.finished()) bytes += deflater.deflate(output);
        }
        deflater.end();
        if (recorder != null) recorder.join();
        System.out.println("SPIN bytes=" + bytes);
    }
}
