package bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Memory under a continuous recording: two JVMs spinning at depth 50 side by side for the same
 * time, both with the same disk recording (maxage=2m, the JVM's own repository): one with stackreq
 * and the perf agent requesting every 100 µs of CPU (10 kHz), one without either. VmRSS of both
 * is sampled every minute; the table shows stackreq's (and the perf agent's) part, which must not
 * grow with the recording's length: pending events reach JFR's chunk files as they rotate
 * (stackreq asks for a new chunk at pending=200000 events).
 */
final class ContinuousPart {
    private final Bench bench;

    ContinuousPart(Bench bench) { this.bench = bench; }

    /** Every JDK's pair at once (four JVMs for two JDKs), so that the run takes `--minutes` in all. */
    void run() throws Exception {
        int minutes = bench.continuousMinutes;
        List<Thread> runs = new ArrayList<>();
        List<Runnable> tables = new ArrayList<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        Bench.progress("continuous: two JVMs per JDK, " + bench.jdks.size() + " JDK(s) at once, for " + minutes
                + " min");
        for (Jvm jdk : bench.jdks) {
            Path dir = bench.work.resolve("continuous").resolve(String.valueOf(jdk.feature));
            Path withDir = dir.resolve("stackreq"), withoutDir = dir.resolve("baseline");
            List<long[]> with = new ArrayList<>(), without = new ArrayList<>();
            Jvm.Result[] result = new Jvm.Result[1];
            runs.add(start(() -> spin(jdk, withoutDir, false, minutes, without), failure));
            runs.add(start(() -> result[0] = spin(jdk, withDir, true, minutes, with), failure));
            tables.add(() -> {
                try {
                    long[] statistics = Recordings.lastStatistics(withDir.resolve("rec.jfr"));
                    double seconds = (result[0].endNanos() - result[0].startNanos()) / 1e9;
                    print(jdk, minutes, with, without, statistics, seconds);
                    Files.deleteIfExists(withDir.resolve("samples.jsonl"));
                } catch (Exception e) {
                    failure.set(e);
                }
            });
        }
        for (Thread run : runs) run.join();
        if (failure.get() != null) throw failure.get();
        for (Runnable table : tables) table.run();
        if (failure.get() != null) throw failure.get();
    }

    interface Spin {
        void run() throws Exception;
    }

    private static Thread start(Spin spin, AtomicReference<Exception> failure) {
        Thread thread = new Thread(() -> {
            try {
                spin.run();
            } catch (Exception e) {
                failure.set(e);
            }
        });
        thread.start();
        return thread;
    }

    private Jvm.Result spin(Jvm jdk, Path dir, boolean stackreq, int minutes, List<long[]> samples) throws Exception {
        List<String> args = new ArrayList<>(List.of("-Xms256m", "-Xmx256m"));
        if (stackreq) {
            args.add("-agentpath:" + bench.lib("libstackreq.so"));
            args.add("-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=100us,out="
                    + dir.resolve("samples.jsonl"));
        }
        args.add("-XX:FlightRecorderOptions:repository=" + dir.resolve("repository"));
        args.add("-XX:StartFlightRecording=maxage=2m,filename=" + dir.resolve("rec.jfr") + ",settings=default,settings="
                + bench.stackreqSettings());
        Files.createDirectories(dir.resolve("repository"));
        long start = System.nanoTime();
        return jdk.run(dir, args, bench.classpath, "bench.DeepSpin", List.of("50", String.valueOf(minutes * 60)),
                minutes * 60 + 300, process -> {
                    int minute = 0;
                    while (process.isAlive()) {
                        long elapsed = System.nanoTime() - start;
                        if (elapsed >= minute * 60_000_000_000L + 5_000_000_000L) {
                            long rss = MemoryPart.rssOf(process.pid());
                            long heap = MemoryPart.heapRssOf(jdk, process.pid());
                            if (rss > 0) {
                                synchronized (samples) {
                                    samples.add(new long[] {minute, rss, heap});
                                }
                            }
                            minute++;
                        }
                        try {
                            Thread.sleep(200);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                });
    }

    private void print(Jvm jdk, int minutes, List<long[]> with, List<long[]> without, long[] statistics,
            double seconds) {
        bench.emit("## Memory under a continuous recording, " + jdk.label());
        bench.emit("");
        bench.emit("VmRSS sampled every minute (5 s past the minute) of two JVMs run side by side for " + minutes
                + " min (with every other JDK's pair at the same time), each spinning at depth 50 (-Xms256m -Xmx256m)"
                + " with a disk recording (maxage=2m): one with stackreq and the perf agent at 100 µs of CPU, one"
                + " without.");
        if (statistics != null) {
            bench.emit(String.format("stackreq accepted %,d requests (%.0f/s), emitted %,d, dropped %,d.",
                    statistics[0], statistics[0] / seconds, statistics[1], statistics[2]));
        }
        bench.emit("");
        bench.emit("The Java heap columns are the resident part of each JVM's heap (garbage included: in a JVM that"
                + " allocates little, whatever it allocates shows as heap pages touched); the last column is the"
                + " difference outside the heap: the agents' native memory.");
        bench.emit("");
        bench.emit("| minute | with stackreq (MiB) | without (MiB) | stackreq + perf agent (MiB) | Java heap with"
                + " | Java heap without | outside the heap (MiB) |");
        bench.emit("|---|---|---|---|---|---|---|");
        int rows = Math.min(with.size(), without.size());
        for (int i = 0; i < rows; i++) {
            long a = with.get(i)[1], b = without.get(i)[1];
            long heapA = with.get(i)[2], heapB = without.get(i)[2];
            boolean heaps = heapA >= 0 && heapB >= 0;
            bench.emit("| " + with.get(i)[0] + " | " + Stats.mib(a) + " | " + Stats.mib(b) + " | "
                    + Stats.signedMib(a - b) + " | " + (heaps ? Stats.mib(heapA) : "?") + " | "
                    + (heaps ? Stats.mib(heapB) : "?") + " | "
                    + (heaps ? Stats.signedMib((a - heapA) - (b - heapB)) : "?") + " |");
        }
        bench.emit("");
    }
}
