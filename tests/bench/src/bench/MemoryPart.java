package bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Deliverable 4: resident memory (VmRSS of /proc/PID/status, sampled every 100 ms by this
 * harness) of a JVM spinning at depth 50, with stackreq at rest and at 10 kHz of requests
 * (perf task-clock every 100 µs on the spinning thread), each against the same JVM without the
 * part in question. Also the emitter thread's CPU time (/proc/PID/task/TID/schedstat).
 */
final class MemoryPart {
    record Config(String id, String label) {}

    static final List<Config> CONFIGS = List.of(
            new Config("none", "no agent, no recording"),
            new Config("jfr", "JFR recording of jdk.StackTraceRequest, no stackreq"),
            new Config("rest", "stackreq + recording, no requests (at rest)"),
            new Config("dry", "stackreq + recording + perf agent dry-run, 100 µs"),
            new Config("10k", "stackreq + recording + perf agent, 100 µs (10 kHz target)"),
            new Config("file-10k", "stackreq file= (no JFR recording) + perf agent, 100 µs"));

    private final Bench bench;

    MemoryPart(Bench bench) { this.bench = bench; }

    static final class Sample {
        final long nanos, rss, emitterCpuNanos;

        Sample(long nanos, long rss, long emitterCpuNanos) {
            this.nanos = nanos;
            this.rss = rss;
            this.emitterCpuNanos = emitterCpuNanos;
        }
    }

    static final class Measured {
        double rssAt1s, rssEnd, rssMax, slopePerMinute, requestsPerSecond, emitterCpuNanos = Double.NaN;
        long accepted = -1, emitted = -1, dropped = -1;
    }

    static long rssOf(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private static final Pattern HEAP_RANGE = Pattern.compile("\\[0x([0-9a-f]+), 0x([0-9a-f]+)\\)");

    /**
     * Resident bytes of the Java heap: the mappings inside the range {@code jcmd GC.heap_info}
     * prints for the heap, or -1 when that fails.
     */
    static long heapRssOf(Jvm jdk, long pid) {
        try {
            Process jcmd = new ProcessBuilder(jdk.home.resolve("bin/jcmd").toString(), Long.toString(pid),
                    "GC.heap_info").redirectErrorStream(true).start();
            String info = new String(jcmd.getInputStream().readAllBytes());
            if (jcmd.waitFor() != 0) return -1;
            Matcher range = HEAP_RANGE.matcher(info);
            if (!range.find()) return -1;
            long low = Long.parseUnsignedLong(range.group(1), 16), high = Long.parseUnsignedLong(range.group(2), 16);
            long rss = 0;
            boolean inside = false;
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps"))) {
                int dash = line.indexOf('-');
                int space = line.indexOf(' ');
                if (dash > 0 && space > dash && line.substring(0, dash).matches("[0-9a-f]+")) {
                    long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
                    inside = start >= low && start < high;
                } else if (inside && line.startsWith("Rss:")) {
                    rss += Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            return rss;
        } catch (IOException | RuntimeException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The emitter thread's on-CPU nanoseconds, or -1 when there is none (yet). */
    static long emitterCpu(long pid) {
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String comm = Files.readString(task.resolve("comm")).trim();
                if (comm.startsWith("stackreq emit")) {
                    return Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    List<String> jvmArgs(Config c, Path dir) throws IOException {
        List<String> args = new ArrayList<>(List.of("-Xms256m", "-Xmx256m"));
        String stackreq = "-agentpath:" + bench.lib("libstackreq.so");
        String perf = "-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=100us,out="
                + dir.resolve("samples.jsonl");
        String recording = "-XX:StartFlightRecording=filename=" + dir.resolve("rec.jfr") + ",settings="
                + bench.stackreqSettings();
        switch (c.id) {
            case "none": break;
            case "jfr": args.add(recording); break;
            case "rest": args.addAll(List.of(stackreq, recording)); break;
            case "dry": args.addAll(List.of(stackreq, perf + ",dry-run", recording)); break;
            case "10k": args.addAll(List.of(stackreq, perf, recording)); break;
            case "file-10k": args.addAll(List.of(stackreq + "=file=" + dir.resolve("rec.jfr"), perf)); break;
            default: throw new IllegalArgumentException(c.id);
        }
        return args;
    }

    Measured measure(Jvm jdk, Config c, int rep) throws Exception {
        Path dir = bench.work.resolve("memory").resolve(jdk.feature + "-" + c.id + "-" + rep);
        double seconds = bench.quick ? 4 : 10;
        List<Sample> samples = new ArrayList<>();
        Jvm.Result result = jdk.run(dir, jvmArgs(c, dir), bench.classpath, "bench.DeepSpin",
                List.of("50", String.valueOf(seconds)), 300, process -> {
                    long pid = process.pid();
                    while (process.isAlive()) {
                        long rss = rssOf(pid);
                        if (rss > 0) samples.add(new Sample(System.nanoTime(), rss, emitterCpu(pid)));
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                });
        result.fields("SPIN");
        long spinStart = result.nanosOf("SPINNING"), spinEnd = result.nanosOf("SPIN ");
        Measured m = new Measured();
        List<Sample> during = new ArrayList<>();
        synchronized (samples) {
            for (Sample s : samples) if (s.nanos >= spinStart && s.nanos <= spinEnd) during.add(s);
        }
        if (during.isEmpty()) throw new IllegalStateException("no RSS samples while spinning in " + dir);
        Sample first = during.get(0);
        for (Sample s : during) {
            if (s.nanos - spinStart <= 1_000_000_000L) first = s;
            m.rssMax = Math.max(m.rssMax, s.rss);
        }
        Sample last = during.get(during.size() - 1);
        m.rssAt1s = first.rss;
        m.rssEnd = last.rss;
        double minutes = (last.nanos - first.nanos) / 60e9;
        m.slopePerMinute = minutes > 0 ? (last.rss - first.rss) / minutes : Double.NaN;
        if (last.emitterCpuNanos >= 0) m.emitterCpuNanos = last.emitterCpuNanos;
        if (c.id.equals("10k") || c.id.equals("file-10k") || c.id.equals("dry")) {
            long[] perf = Recordings.perfSamples(dir.resolve("samples.jsonl"), spinStart, spinEnd);
            m.requestsPerSecond = (c.id.equals("dry") ? perf[0] : perf[1]) / ((spinEnd - spinStart) / 1e9);
        }
        long[] statistics = Recordings.lastStatistics(dir.resolve("rec.jfr"));
        if (statistics != null) {
            m.accepted = statistics[0];
            m.emitted = statistics[1];
            m.dropped = statistics[2];
        }
        return m;
    }

    void run() throws Exception {
        int reps = bench.quick ? 1 : 3;
        for (Jvm jdk : bench.jdks) {
            Map<String, List<Measured>> results = new LinkedHashMap<>();
            for (Config c : CONFIGS) results.put(c.id, new ArrayList<>());
            for (int rep = 0; rep < reps; rep++) {
                for (int k = 0; k < CONFIGS.size(); k++) {
                    Config c = CONFIGS.get((k + rep) % CONFIGS.size());
                    Bench.progress("memory " + jdk.label() + " " + c.id + " rep " + (rep + 1));
                    results.get(c.id).add(measure(jdk, c, rep));
                }
            }
            print(jdk, results, reps);
        }
    }

    private static double med(List<Measured> runs, java.util.function.ToDoubleFunction<Measured> f) {
        List<Double> v = new ArrayList<>();
        for (Measured m : runs) if (!Double.isNaN(f.applyAsDouble(m))) v.add(f.applyAsDouble(m));
        return Stats.median(v);
    }

    private void print(Jvm jdk, Map<String, List<Measured>> results, int reps) {
        bench.emit("## Memory, " + jdk.label());
        bench.emit("");
        bench.emit("VmRSS of a JVM spinning at depth 50 (-Xms256m -Xmx256m), sampled every 100 ms: at 1 s into the "
                + "spin, at its end (" + (bench.quick ? 4 : 10) + " s) and the growth rate between; median of "
                + reps + " run(s). Requests/s and drops come from the perf samples and stackreq's statistics event.");
        bench.emit("");
        bench.emit("| configuration | RSS at 1 s (MiB) | RSS at end (MiB) | growth (MiB/min) | requests/s "
                + "| accepted / dropped | emitter CPU per event |");
        bench.emit("|---|---|---|---|---|---|---|");
        for (Config c : CONFIGS) {
            List<Measured> runs = results.get(c.id);
            double accepted = med(runs, m -> m.accepted), dropped = med(runs, m -> m.dropped);
            double emitted = med(runs, m -> m.emitted);
            double cpu = med(runs, m -> m.emitterCpuNanos);
            String perEvent = emitted > 0 && !Double.isNaN(cpu) ? Stats.nanos(cpu / emitted) : "–";
            bench.emit("| " + c.label + " | " + Stats.mib(med(runs, m -> m.rssAt1s)) + " | "
                    + Stats.mib(med(runs, m -> m.rssEnd))
                    + " | " + Stats.signedMib(med(runs, m -> m.slopePerMinute)) + " | "
                    + Stats.f0(med(runs, m -> m.requestsPerSecond))
                    + " | " + (accepted >= 0 ? Stats.f0(accepted) + " / " + Stats.f0(dropped) : "–")
                    + " | " + perEvent + " |");
        }
        bench.emit("");
        bench.emit("| added by | at 1 s (MiB) | at end (MiB) |");
        bench.emit("|---|---|---|");
        diff(results, "stackreq at rest (rest − recording alone)", "rest", "jfr");
        diff(results, "stackreq at 10 kHz, its own part (10 kHz − dry-run)", "10k", "dry");
        diff(results, "stackreq + perf agent at 10 kHz (10 kHz − recording alone)", "10k", "jfr");
        diff(results, "stackreq file= + perf agent at 10 kHz (file= − no agent)", "file-10k", "none");
        bench.emit("");
    }

    private void diff(Map<String, List<Measured>> results, String label, String a, String b) {
        List<Measured> x = results.get(a), y = results.get(b);
        bench.emit("| " + label + " | " + Stats.signedMib(med(x, m -> m.rssAt1s) - med(y, m -> m.rssAt1s)) + " | "
                + Stats.signedMib(med(x, m -> m.rssEnd) - med(y, m -> m.rssEnd)) + " |");
    }
}
