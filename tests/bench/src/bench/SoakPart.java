package bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * The long soak (issue 28, item 5): one JVM per JDK, one JDK after the other, for {@code
 * --minutes} (120 by default). Four threads of real work ({@link SoakApp}) sampled by the perf
 * agent every 1 ms of CPU each (up to 1 kHz a thread), a continuous disk recording ({@code
 * maxage=6m}, default settings plus {@code jdk.StackTraceRequest}) whose chunk is rotated every
 * minute by the workload ({@code FlightRecorder.takeSnapshot()}, see {@link SoakApp}) and dumped
 * with {@code jcmd JFR.dump} every 5 minutes (and once at the end).
 *
 * <p>Each dump is checked against the perf agent's samples file, read as it grows: the dump's
 * window is the range of userData of its {@code jdk.StackTraceRequest} events, and every request
 * the perf agent saw accepted ({@code error} 0) in that range must have exactly one event; no event
 * may be for a refused request or come twice; every {@code stackreq.RequestStatistics} event must
 * say accepted = emitted + dropped + pending. Consecutive windows must meet, so that every accepted
 * request from the first window on is in some dump.
 *
 * <p>Every minute (5 s past it) it samples VmRSS, the Java heap's resident bytes (smaps inside the
 * range {@code jcmd GC.heap_info} names) and NMT ({@code -XX:NativeMemoryTracking=summary},
 * {@code jcmd VM.native_memory summary}). The heap is touched whole at start
 * ({@code -XX:+AlwaysPreTouch}): RSS otherwise grows as G1 first uses each region, which looks like
 * a leak over hours and is not one; and prints the least-squares slope per hour and the
 * max−min after the warm-up (10 minutes; a third of the run for runs shorter than 30 minutes).
 */
final class SoakPart {
    private static final int ROTATE_SECONDS = 60;
    private static final int DUMP_SECONDS = 300;
    private final Bench bench;

    SoakPart(Bench bench) { this.bench = bench; }

    void run() throws Exception {
        for (Jvm jdk : bench.jdks) runOne(jdk);
    }

    /** One memory sample. */
    record Memory(double minute, long rss, long heapRss, long nmtCommitted, long nmtHeap, long nmtTracing) {
        long rssOutsideHeap() { return heapRss < 0 ? -1 : rss - heapRss; }

        long nmtOutsideHeap() { return nmtCommitted < 0 || nmtHeap < 0 ? -1 : nmtCommitted - nmtHeap; }
    }

    /** What one dump's check found. */
    static final class DumpCheck {
        String name;
        double atMinute;
        int chunks;
        long events, minId = Long.MAX_VALUE, maxId = Long.MIN_VALUE;
        double fromMinute = Double.NaN, toMinute = Double.NaN;
        long acceptedInWindow, missing, twice, notAccepted, noSampleLine, beforeLedger;
        long statistics, statisticsExact;
        long[] lastStatistics; // accepted, emitted, dropped, pending
        long gapAccepted = -1; // accepted ids between the previous window and this one
        final List<String> problems = new ArrayList<>();

        boolean clean() {
            return missing == 0 && twice == 0 && notAccepted == 0 && statistics == statisticsExact && events > 0
                    && gapAccepted <= 0 && beforeLedger == 0;
        }
    }

    private void runOne(Jvm jdk) throws Exception {
        int minutes = bench.soakMinutes;
        Path dir = bench.work.resolve("soak").resolve(String.valueOf(jdk.feature));
        Path dumps = dir.resolve("dumps");
        Files.createDirectories(dumps);
        Files.createDirectories(dir.resolve("repository"));
        Path samples = dir.resolve("samples.jsonl");
        List<String> args = new ArrayList<>(List.of("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch", "-XX:NativeMemoryTracking=summary",
                "-agentpath:" + bench.lib("libstackreq.so"),
                "-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=1ms,out=" + samples,
                "-XX:FlightRecorderOptions:repository=" + dir.resolve("repository"),
                "-XX:StartFlightRecording=name=soak,maxage=6m,settings=default,settings=" + bench.stackreqSettings()));
        List<Integer> dumpSeconds = new ArrayList<>();
        for (int t = DUMP_SECONDS; t <= minutes * 60; t += DUMP_SECONDS) dumpSeconds.add(t);
        if (minutes * 60 % DUMP_SECONDS != 0) dumpSeconds.add(minutes * 60);
        Bench.progress("soak " + jdk.label() + ": " + minutes + " min, 4 threads at 1 ms of CPU, rotation every "
                + ROTATE_SECONDS + " s, " + dumpSeconds.size() + " dump(s); run directory " + dir);
        List<Memory> memory = new ArrayList<>();
        List<DumpCheck> checks = new ArrayList<>();
        Ledger ledger = new Ledger(samples);
        ExecutorService checker = Executors.newSingleThreadExecutor();
        List<Future<DumpCheck>> pending = new ArrayList<>();
        long[] startNanos = {0};
        Jvm.Result result = jdk.run(dir, args, bench.classpath, "bench.SoakApp",
                List.of(String.valueOf(minutes * 60 + 30), String.valueOf(ROTATE_SECONDS)), minutes * 60 + 600, process -> {
                    long start = System.nanoTime();
                    startNanos[0] = start;
                    ledger.startNanos = start;
                    int minute = 0, dump = 0;
                    while (process.isAlive()) {
                        long elapsed = System.nanoTime() - start;
                        if (dump < dumpSeconds.size() && elapsed >= dumpSeconds.get(dump) * 1_000_000_000L) {
                            String name = String.format(Locale.ROOT, "dump-%02d", dump + 1);
                            Path file = dumps.resolve(name + ".jfr");
                            double at = elapsed / 60e9;
                            String output = jcmd(jdk, process.pid(), "JFR.dump", "name=soak", "filename=" + file);
                            long dumped = System.nanoTime();
                            if (!Files.exists(file)) {
                                Bench.progress("soak " + jdk.label() + ": " + name + " failed: " + output.trim());
                            } else {
                                pending.add(checker.submit(() -> check(name, at, file, dumped, ledger)));
                            }
                            dump++;
                        }
                        if (elapsed >= minute * 60_000_000_000L + 5_000_000_000L) {
                            Memory m = sample(jdk, process.pid(), (System.nanoTime() - start) / 60e9);
                            if (m != null) {
                                synchronized (memory) {
                                    memory.add(m);
                                }
                                Bench.progress(String.format(Locale.ROOT,
                                        "soak %s: minute %d, RSS %s MiB (outside the heap %s), NMT committed %s MiB (outside the heap %s), %,d requests accepted",
                                        jdk.label(), minute, Stats.mib(m.rss), mib(m.rssOutsideHeap()),
                                        Stats.mib(m.nmtCommitted), mib(m.nmtOutsideHeap()),
                                        ledger.acceptedSoFar()));
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
        for (Future<DumpCheck> f : pending) checks.add(f.get());
        checker.shutdown();
        checker.awaitTermination(1, TimeUnit.MINUTES);
        ledger.catchUp();
        String end = result.lines().stream().filter(l -> l.startsWith("SOAK-END")).findFirst().orElse(null);
        if (end == null) {
            throw new IllegalStateException("soak run in " + dir + " exited " + result.exitCode()
                    + " without SOAK-END; see stdout.txt and stderr.txt there");
        }
        long rotations = result.lines().stream().filter(l -> l.startsWith("ROTATED")).count();
        print(jdk, minutes, dir, checks, memory, ledger, rotations, result);
        writeCsv(dir.resolve("memory.csv"), memory);
        // The samples file grows by ~2 GB an hour at 4 kHz; the dumps that checked clean go too (the last is kept).
        Files.deleteIfExists(samples);
        for (int i = 0; i < checks.size() - 1; i++) {
            if (checks.get(i).clean()) Files.deleteIfExists(dumps.resolve(checks.get(i).name + ".jfr"));
        }
    }

    // ---------------------------------------------------------------- dumps

    private static DumpCheck check(String name, double atMinute, Path file, long dumpedNanos, Ledger ledger)
            throws Exception {
        // The perf agent writes its lines within a second; wait until they reach past the dump.
        long waitUntil = System.nanoTime() + 30_000_000_000L;
        while (ledger.catchUp() < dumpedNanos && System.nanoTime() < waitUntil) Thread.sleep(200);
        DumpCheck c = new DumpCheck();
        c.name = name;
        c.atMinute = atMinute;
        c.chunks = chunks(file);
        long base = ledger.base();
        BitSet seen = new BitSet(), twice = new BitSet();
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                String type = e.getEventType().getName();
                if (type.equals("jdk.StackTraceRequest")) {
                    long id = e.getLong("userData");
                    c.events++;
                    c.minId = Math.min(c.minId, id);
                    c.maxId = Math.max(c.maxId, id);
                    if (id < base) {
                        c.beforeLedger++;
                        continue;
                    }
                    int index = Math.toIntExact(id - base);
                    if (seen.get(index)) twice.set(index);
                    seen.set(index);
                } else if (type.equals("stackreq.RequestStatistics")) {
                    long[] s = {e.getLong("accepted"), e.getLong("emitted"), e.getLong("dropped"), e.getLong("pending")};
                    c.statistics++;
                    if (s[0] == s[1] + s[2] + s[3]) c.statisticsExact++;
                    else if (c.problems.size() < 5) c.problems.add("statistics not exact: " + java.util.Arrays.toString(s));
                    if (c.lastStatistics == null || s[0] >= c.lastStatistics[0]) c.lastStatistics = s;
                }
            }
        }
        c.twice = twice.cardinality();
        if (c.events == 0) return c;
        c.fromMinute = ledger.minuteOf(c.minId);
        c.toMinute = ledger.minuteOf(c.maxId);
        for (long id = Math.max(c.minId, base); id <= c.maxId; id++) {
            int error = ledger.error(id);
            boolean has = seen.get(Math.toIntExact(id - base));
            if (error == Ledger.NO_LINE) {
                c.noSampleLine++;
            } else if (error == 0) {
                c.acceptedInWindow++;
                if (!has) {
                    c.missing++;
                    if (c.problems.size() < 10) {
                        c.problems.add(String.format(Locale.ROOT, "missing userData %d (%.3f s after the window's start,"
                                + " %.3f s before its end)", id, (ledger.time(id) - ledger.time(c.minId)) / 1e9,
                                (ledger.time(c.maxId) - ledger.time(id)) / 1e9));
                    }
                }
            } else if (has) {
                c.notAccepted++;
                if (c.problems.size() < 10) c.problems.add("event for userData " + id + ", refused with " + error);
            }
        }
        synchronized (ledger) {
            if (ledger.previousMaxId >= 0) {
                c.gapAccepted = 0;
                for (long id = ledger.previousMaxId + 1; id < c.minId; id++) if (ledger.error(id) == 0) c.gapAccepted++;
            }
            ledger.previousMaxId = Math.max(ledger.previousMaxId, c.maxId);
            // Later windows start after this one's start (retention only moves forward).
            ledger.discardBefore(c.minId);
        }
        Bench.progress(String.format(Locale.ROOT, "soak: %s checked: %,d events, window %.1f–%.1f min, %,d accepted,"
                + " %d missing, %d twice, %d for refused requests, statistics exact %d/%d", name, c.events,
                c.fromMinute, c.toMinute, c.acceptedInWindow, c.missing, c.twice, c.notAccepted, c.statisticsExact,
                c.statistics));
        for (String p : c.problems) Bench.progress("soak: " + name + ": " + p);
        return c;
    }

    /** The chunks of a recording file: a chunk header starts "FLR\0", its size at offset 8. */
    static int chunks(Path file) throws IOException {
        int n = 0;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long position = 0, length = f.length();
            while (position + 68 <= length) {
                f.seek(position);
                if (f.readInt() != 0x464c5200) break;
                f.seek(position + 8);
                long size = f.readLong();
                if (size <= 0) break;
                n++;
                position += size;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- memory

    private static final Pattern NMT_TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern NMT_HEAP = Pattern.compile("Java Heap \\(reserved=\\d+KB, committed=(\\d+)KB\\)");
    private static final Pattern NMT_TRACING = Pattern.compile("Tracing \\(reserved=\\d+KB, committed=(\\d+)KB\\)");

    private static Memory sample(Jvm jdk, long pid, double minute) {
        long rss = MemoryPart.rssOf(pid);
        String nmt = jcmd(jdk, pid, "VM.native_memory", "summary");
        Matcher total = NMT_TOTAL.matcher(nmt), heap = NMT_HEAP.matcher(nmt), tracing = NMT_TRACING.matcher(nmt);
        if (rss <= 0) return null;
        return new Memory(minute, rss, MemoryPart.heapRssOf(jdk, pid), total.find() ? Long.parseLong(total.group(2)) * 1024 : -1,
                heap.find() ? Long.parseLong(heap.group(1)) * 1024 : -1,
                tracing.find() ? Long.parseLong(tracing.group(1)) * 1024 : -1);
    }

    private static String jcmd(Jvm jdk, long pid, String... command) {
        List<String> line = new ArrayList<>(List.of(jdk.home.resolve("bin/jcmd").toString(), Long.toString(pid)));
        line.addAll(List.of(command));
        try {
            Process p = new ProcessBuilder(line).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(2, TimeUnit.MINUTES);
            return output;
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e.toString();
        }
    }

    /** Least-squares slope of y over x (minutes), per hour. */
    static double slopePerHour(List<double[]> points) {
        int n = points.size();
        if (n < 2) return Double.NaN;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (double[] p : points) {
            sx += p[0];
            sy += p[1];
            sxx += p[0] * p[0];
            sxy += p[0] * p[1];
        }
        double d = n * sxx - sx * sx;
        return d == 0 ? Double.NaN : (n * sxy - sx * sy) / d * 60;
    }

    private static void writeCsv(Path file, List<Memory> memory) throws IOException {
        List<String> lines = new ArrayList<>(List.of("minute,rss_bytes,heap_rss_bytes,nmt_committed_bytes,nmt_heap_bytes,nmt_tracing_bytes"));
        for (Memory m : memory) {
            lines.add(String.format(Locale.ROOT, "%.3f,%d,%d,%d,%d,%d", m.minute, m.rss, m.heapRss, m.nmtCommitted, m.nmtHeap,
                    m.nmtTracing));
        }
        Files.write(file, lines);
    }

    // ---------------------------------------------------------------- report

    private void print(Jvm jdk, int minutes, Path dir, List<DumpCheck> checks, List<Memory> memory, Ledger ledger,
            long rotations, Jvm.Result result) {
        double seconds = (result.endNanos() - result.startNanos()) / 1e9;
        bench.emit("## Soak, " + jdk.label() + ": " + minutes + " min");
        bench.emit("");
        bench.emit(String.format(Locale.ROOT, "Four threads of work (Jackson, Lucene, H2, Jackson) sampled by the perf"
                + " agent every 1 ms of CPU; a disk recording (maxage=6m, default settings plus"
                + " jdk.StackTraceRequest) rotated by the workload every %d s (`FlightRecorder.takeSnapshot()`, %d"
                + " rotations) and dumped with `jcmd JFR.dump` every 5 min and at the end; %,d requests accepted"
                + " (%.0f/s), %,d refused (by error code: %s), %,d sample lines lost by the perf agent (ring full). Run directory `%s`.",
                ROTATE_SECONDS, rotations, ledger.accepted, ledger.accepted / seconds, ledger.refused, ledger.refusedBy, ledger.lost(),
                dir));
        bench.emit("");
        bench.emit("Each dump's window is the range of userData of its events; accepted = every request the perf"
                + " agent saw accepted in it; missing = accepted without an event; not accepted = events for refused"
                + " requests; gap = accepted requests between the previous dump's window and this one's (in no"
                + " dump). Statistics: the `stackreq.RequestStatistics` events of the dump that say accepted ="
                + " emitted + dropped + pending, and the last one's counts.");
        bench.emit("");
        bench.emit("| dump | at (min) | window (min) | chunks | accepted in window | events | missing | twice |"
                + " not accepted | gap | statistics exact | last statistics: accepted / emitted / dropped / pending |");
        bench.emit("|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (DumpCheck c : checks) {
            long[] s = c.lastStatistics;
            bench.emit(String.format(Locale.ROOT, "| %s | %.1f | %.1f–%.1f | %d | %,d | %,d | %d | %d | %d | %s | %d/%d | %s |",
                    c.name, c.atMinute, c.fromMinute, c.toMinute, c.chunks, c.acceptedInWindow, c.events, c.missing,
                    c.twice, c.notAccepted, c.gapAccepted < 0 ? "–" : String.format(Locale.ROOT, "%,d", c.gapAccepted),
                    c.statisticsExact, c.statistics, s == null ? "–"
                            : String.format(Locale.ROOT, "%,d / %,d / %,d / %,d", s[0], s[1], s[2], s[3])));
        }
        bench.emit("");
        long clean = checks.stream().filter(DumpCheck::clean).count();
        bench.emit(clean + " of " + checks.size() + " dumps exact." + (checks.stream().anyMatch(c -> c.noSampleLine > 0)
                ? " (Ids without a sample line, lost by the perf agent, are left out of the check.)" : ""));
        for (DumpCheck c : checks) for (String p : c.problems) bench.emit("- " + c.name + ": " + p);
        bench.emit("");
        double warmUp = minutes >= 30 ? 10 : minutes / 3.0;
        bench.emit(String.format(Locale.ROOT, "Memory every minute (5 s past it): VmRSS, of it outside the Java heap (-Xms256m -Xmx256m,"
                + " touched whole at start: -XX:+AlwaysPreTouch; the heap's resident bytes from smaps), NMT's total"
                + " committed (`jcmd VM.native_memory summary`), NMT's committed outside the Java heap,"
                + " and of it NMT's Tracing (JFR). NMT counts the JVM's own allocations only: stackreq's and the perf"
                + " agent's show in RSS. Slope: least squares over the samples after minute %.0f; max−min over the"
                + " same samples.%s", warmUp, memory.size() > 31 ? " Every 5th minute shown; all in `memory.csv`." : ""));
        bench.emit("");
        bench.emit("| minute | RSS (MiB) | RSS outside the heap (MiB) | NMT committed (MiB) | NMT outside the heap (MiB)"
                + " | NMT Tracing (MiB) |");
        bench.emit("|---|---|---|---|---|---|");
        for (int i = 0; i < memory.size(); i++) {
            Memory m = memory.get(i);
            if (memory.size() > 31 && i % 5 != 0 && i != memory.size() - 1) continue;
            bench.emit(String.format(Locale.ROOT, "| %.0f | %s | %s | %s | %s | %s |", Math.floor(m.minute),
                    Stats.mib(m.rss), mib(m.rssOutsideHeap()), mib(m.nmtCommitted), mib(m.nmtOutsideHeap()),
                    mib(m.nmtTracing)));
        }
        List<Memory> after = memory.stream().filter(m -> m.minute >= warmUp).toList();
        String[] names = {"RSS", "RSS outside the heap", "NMT committed", "NMT outside the heap", "NMT Tracing"};
        StringBuilder slope = new StringBuilder("| slope after minute " + Stats.f0(warmUp) + " (MiB/h) |");
        StringBuilder range = new StringBuilder("| max−min after minute " + Stats.f0(warmUp) + " (MiB) |");
        for (int k = 0; k < names.length; k++) {
            List<double[]> points = new ArrayList<>();
            for (Memory m : after) {
                long v = switch (k) {
                    case 0 -> m.rss;
                    case 1 -> m.rssOutsideHeap();
                    case 2 -> m.nmtCommitted;
                    case 3 -> m.nmtOutsideHeap();
                    default -> m.nmtTracing;
                };
                if (v >= 0) points.add(new double[] {m.minute, v});
            }
            double max = points.stream().mapToDouble(p -> p[1]).max().orElse(Double.NaN);
            double min = points.stream().mapToDouble(p -> p[1]).min().orElse(Double.NaN);
            slope.append(' ').append(Stats.signedMib(slopePerHour(points))).append(" |");
            range.append(' ').append(Stats.mib(max - min)).append(" |");
        }
        bench.emit(slope.toString());
        bench.emit(range.toString());
        bench.emit("");
    }

    private static String mib(long bytes) { return bytes < 0 ? "?" : Stats.mib(bytes); }

    // ---------------------------------------------------------------- the perf agent's samples

    /**
     * The perf agent's samples file read as it grows: per userData from {@link #base()} on, the
     * time (CLOCK_MONOTONIC ns) and the error code; older ids are forgotten once no dump can hold
     * them. Ids are handed out in order by the agent's handler, so they are dense.
     */
    static final class Ledger {
        static final int NO_LINE = -1;
        private final Path file;
        private long position;
        private long base = 1;
        private long[] times = new long[1 << 16];
        private short[] errors = new short[1 << 16];
        private long maxTime;
        long startNanos;
        long accepted, refused, lines;
        /** Sample lines per error code other than 0. */
        final java.util.TreeMap<Integer, Long> refusedBy = new java.util.TreeMap<>();
        long previousMaxId = -1;
        private long endLost = -1;

        Ledger(Path file) {
            this.file = file;
            java.util.Arrays.fill(errors, (short) NO_LINE);
        }

        synchronized long base() { return base; }

        synchronized long acceptedSoFar() {
            try {
                catchUp();
            } catch (IOException e) {
                // reported by the checks
            }
            return accepted;
        }

        long lost() { return endLost; }

        /** Reads the lines written since the last call; returns the latest sample time seen. */
        synchronized long catchUp() throws IOException {
            if (!Files.exists(file)) return maxTime;
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                long length = f.length();
                if (length <= position) return maxTime;
                f.seek(position);
                byte[] bytes = new byte[(int) Math.min(length - position, 64 << 20)];
                f.readFully(bytes);
                int lineStart = 0;
                for (int i = 0; i < bytes.length; i++) {
                    if (bytes[i] != '\n') continue;
                    line(new String(bytes, lineStart, i - lineStart, StandardCharsets.UTF_8));
                    lineStart = i + 1;
                }
                position += lineStart;
            }
            return maxTime;
        }

        private void line(String line) {
            if (line.startsWith("{\"type\":\"end\"")) {
                endLost = Recordings.longField(line, "\"lost\":");
                return;
            }
            if (!line.startsWith("{\"type\":\"sample\"")) return;
            lines++;
            long id = Recordings.longField(line, "\"userData\":");
            long time = Recordings.longField(line, "\"time\":");
            int error = (int) Recordings.longField(line, "\"error\":");
            if (error == 0) accepted++;
            else {
                refused++;
                refusedBy.merge(error, 1L, Long::sum);
            }
            maxTime = Math.max(maxTime, time);
            if (id < base) return;
            long index = id - base;
            while (index >= times.length) {
                times = java.util.Arrays.copyOf(times, times.length * 2);
                short[] grown = java.util.Arrays.copyOf(errors, errors.length * 2);
                java.util.Arrays.fill(grown, errors.length, grown.length, (short) NO_LINE);
                errors = grown;
            }
            times[(int) index] = time;
            errors[(int) index] = (short) error;
        }

        synchronized int error(long id) {
            long index = id - base;
            return index < 0 || index >= errors.length ? NO_LINE : errors[(int) index];
        }

        synchronized long time(long id) {
            long index = id - base;
            return index < 0 || index >= times.length ? 0 : times[(int) index];
        }

        synchronized double minuteOf(long id) {
            long t = time(id);
            return t == 0 ? Double.NaN : (t - startNanos) / 60e9;
        }

        /** Forgets ids below id. */
        synchronized void discardBefore(long id) {
            if (id <= base) return;
            int shift = (int) Math.min(id - base, times.length);
            int keep = times.length - shift;
            System.arraycopy(times, shift, times, 0, keep);
            System.arraycopy(errors, shift, errors, 0, keep);
            java.util.Arrays.fill(times, keep, times.length, 0);
            java.util.Arrays.fill(errors, keep, errors.length, (short) NO_LINE);
            base += shift;
        }
    }
}
