package bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ObjIntConsumer;
import java.util.function.Predicate;

/**
 * The cost of native=on by native depth, side by side with async-profiler 4.2: NativeDepthSpin
 * spins in C at 5, 20 and 50 native frames (its library built with frame pointers, and without),
 * sampled at 1 ms of CPU by stackreq (perf agent, native=off and native=on) and by async-profiler
 * (event=cpu with cstack=fp, cstack=dwarf, its default, and its default with jfrsync). Every
 * repetition runs every configuration once, in an order rotated per repetition and reversed every
 * other one, so a configuration's ratio to "none" pairs runs taken close together. Two measures:
 * stackreq's request latency (its latency= histograms; async-profiler has none), and what every
 * profiler can be measured by: the work the spinning thread does per second of its CPU (a signal
 * handler runs on that thread) and the CPU of the whole process per unit of work (the profiler's
 * other threads too).
 */
final class NativeDepthPart {
    private static final int[] DEPTHS = {5, 20, 50};
    private static final List<String> LIBRARIES = List.of("fp", "nofp");

    record Config(String id, String label, String library) {}

    /** threadNanos: CPU of the process's threads during the spin, by {@link #threadGroup}. */
    record Run(double units, double threadCpu, double cpu, double seconds, long samples, int medianFrames,
            long[] whole, Map<String, Long> threadNanos) {
        double cpuPerUnit() { return cpu / units; }
    }

    private final Bench bench;

    NativeDepthPart(Bench bench) { this.bench = bench; }

    /** Frame pointers: every profiler; without them only the unwinders that read .eh_frame (cstack=fp would cut). */
    static List<Config> configs() {
        List<Config> all = new ArrayList<>();
        for (String library : LIBRARIES) {
            all.add(new Config("none", "no profiler", library));
            // The JVM's JFR with stackreq's settings, no agent: what the recording costs by itself.
            if (library.equals("fp")) all.add(new Config("jfr", "JFR recording only", library));
            all.add(new Config("stackreq-off", "stackreq native=off", library));
            all.add(new Config("stackreq-on", "stackreq native=on", library));
            if (library.equals("fp")) all.add(new Config("ap-fp", "async-profiler event=cpu cstack=fp", library));
            all.add(new Config("ap-dwarf", "async-profiler event=cpu cstack=dwarf", library));
            all.add(new Config("ap-default", "async-profiler event=cpu (default cstack)", library));
            // async-profiler delivering its samples into a JVM JFR recording with stackreq's settings,
            // as stackreq delivers its events: both sides then pay for the JVM's recording.
            all.add(new Config("ap-jfrsync", "async-profiler event=cpu jfrsync (default cstack)", library));
        }
        return all;
    }

    private List<String> jvmArgs(Config c, Path dir) throws Exception {
        List<String> args = new ArrayList<>(List.of("-Xms256m", "-Xmx256m"));
        if (c.id.startsWith("stackreq")) {
            args.add("-agentpath:" + bench.lib("libstackreq.so") + "=native=" + c.id.substring("stackreq-".length())
                    + ",latency=" + dir.resolve("latency.json") + ",latency-bare-walk=off");
            args.add("-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=1ms,out="
                    + dir.resolve("samples.jsonl"));
            args.add("-XX:StartFlightRecording=filename=" + dir.resolve("rec.jfr") + ",settings="
                    + bench.stackreqSettings());
        } else if (c.id.equals("jfr")) {
            args.add("-XX:StartFlightRecording=filename=" + dir.resolve("rec.jfr") + ",settings="
                    + bench.stackreqSettings());
        } else if (c.id.startsWith("ap-")) {
            String cstack = switch (c.id) {
                case "ap-fp" -> ",cstack=fp";
                case "ap-dwarf" -> ",cstack=dwarf";
                case "ap-jfrsync" -> ",jfrsync=" + bench.stackreqSettings();
                default -> "";
            };
            args.add("-agentpath:" + bench.asyncProfiler + "=start,event=cpu,interval=1ms" + cstack + ",file="
                    + dir.resolve("rec.jfr"));
        }
        return args;
    }

    private Run measure(Jvm jdk, Config c, int depth, int rep) throws Exception {
        Path dir = bench.work.resolve("native-depth")
                .resolve(jdk.feature + "-" + c.library + "-" + depth + "-" + c.id + "-" + rep);
        double seconds = bench.quick ? 2 : 4;
        Path library = bench.testNativeDir.resolve("libnativedepth_" + c.library + ".so");
        Jvm.Result result = jdk.run(dir, jvmArgs(c, dir), bench.classpath, "bench.NativeDepthSpin",
                List.of(library.toString(), String.valueOf(depth), String.valueOf(seconds)), 300, null);
        Map<String, String> f = result.fields("SPIN");
        long fromNanos = Long.parseLong(f.get("startNanos")), toNanos = Long.parseLong(f.get("endNanos"));
        long fromMillis = Long.parseLong(f.get("startEpochMillis")), toMillis = Long.parseLong(f.get("endEpochMillis"));
        long samples = 0;
        int frames = -1;
        long[] whole = null;
        Path recording = dir.resolve("rec.jfr");
        if (c.id.startsWith("stackreq")) {
            samples = Recordings.perfSamples(dir.resolve("samples.jsonl"), fromNanos, toNanos)[1];
            whole = Recordings.latency(Files.readString(dir.resolve("latency.json")), "wholeNanos");
            frames = medianOf(Recordings.stackDepths(recording, "jdk.StackTraceRequest"));
        } else if (c.id.startsWith("ap-")) {
            // With jfrsync its samples carry times that are not on the JVM's clock (async-profiler
            // 4.2: hours off), so those of the spin cannot be told apart: not counted (-1).
            samples = c.id.equals("ap-jfrsync") ? -1
                    : Recordings.count(recording, "jdk.ExecutionSample", fromMillis, toMillis);
            frames = medianOf(Recordings.stackDepths(recording, "jdk.ExecutionSample"));
        }
        Map<String, Long> threadNanos = new TreeMap<>();
        for (String line : result.lines()) {
            if (!line.startsWith("THREADCPU ")) continue;
            String[] parts = line.split(" ", 3);
            threadNanos.merge(threadGroup(parts[2]), Long.parseLong(parts[1]), Long::sum);
        }
        return new Run(Double.parseDouble(f.get("units")), Double.parseDouble(f.get("threadCpuSeconds")),
                Double.parseDouble(f.get("cpuSeconds")), Double.parseDouble(f.get("seconds")), samples, frames, whole,
                threadNanos);
    }

    /**
     * A thread's name (as /proc gives it: 15 characters at most) without its instance number, so
     * that the workers of one pool add up: "GC Thread#1" is "GC Thread#n".
     */
    static String threadGroup(String name) {
        return name.replaceAll("#\\d+$", "#n");
    }

    private static int medianOf(List<Integer> sorted) {
        return sorted.isEmpty() ? -1 : sorted.get(sorted.size() / 2);
    }

    void run() throws Exception {
        List<Config> configs = configs();
        for (Jvm jdk : bench.jdks) {
            // runs[library/depth/config] = one Run per repetition
            Map<String, List<Run>> runs = new LinkedHashMap<>();
            int total = bench.reps * DEPTHS.length * configs.size(), done = 0;
            for (int rep = 0; rep < bench.reps; rep++) {
                for (int depth : DEPTHS) {
                    for (int k = 0; k < configs.size(); k++) {
                        // Rotated, and reversed every other repetition: no configuration always runs
                        // right after the same other one (a run's files are still being written back
                        // by the kernel while the next one spins).
                        int at = (k + rep) % configs.size();
                        Config c = configs.get(rep % 2 == 0 ? at : configs.size() - 1 - at);
                        Bench.progress(String.format("native-depth %s %s depth %d %s rep %d (%d/%d)", jdk.label(),
                                c.library, depth, c.id, rep + 1, ++done, total));
                        runs.computeIfAbsent(key(c.library, depth, c.id), x -> new ArrayList<>())
                                .add(measure(jdk, c, depth, rep));
                    }
                }
            }
            print(jdk, configs, runs);
        }
    }

    private static String key(String library, int depth, String configId) {
        return library + "/" + depth + "/" + configId;
    }

    private static void forEachLibraryAndDepth(ObjIntConsumer<String> action) {
        for (String library : LIBRARIES) for (int depth : DEPTHS) action.accept(library, depth);
    }

    private void print(Jvm jdk, List<Config> configs, Map<String, List<Run>> runs) {
        bench.emit("## native=on cost by native depth, side by side with async-profiler, " + jdk.label());
        bench.emit("");
        bench.emit("NativeDepthSpin: C recursion of 5, 20 or 50 frames spinning at its deepest frame (library built "
                + "with frame pointers, `fp`, and without, `nofp`), sampled every 1 ms of CPU; " + bench.reps
                + " repetitions, every configuration once per repetition (order rotated, and reversed every other repetition). Each run measures once the JIT "
                + "compiler threads have settled (less than 1% of two 0.2 s spins in a row, at most 4 s of spins): the steady "
                + "state, not the tail of the start-up's compilations.");
        bench.emit("");
        bench.emit("stackreq's request time (whole = entry to return of RequestStackTrace, from its latency= "
                + "histograms; bucket upper bounds, ±12%), medians over the runs; extra = native=on minus native=off "
                + "at the same percentile.");
        bench.emit("");
        tableHeader("library", "native frames", "stack frames, native=on (median)", "whole native=off p50 / p99",
                "whole native=on p50 / p99", "extra p50 / p99");
        forEachLibraryAndDepth((library, depth) -> {
            List<Run> off = runs.get(key(library, depth, "stackreq-off"));
            List<Run> on = runs.get(key(library, depth, "stackreq-on"));
            double offP50 = percentile(off, 1), offP99 = percentile(off, 3);
            double onP50 = percentile(on, 1), onP99 = percentile(on, 3);
            bench.emit("| " + library + " | " + depth + " | " + Stats.f0(medianFrames(on)) + " | "
                    + Stats.nanos(offP50) + " / " + Stats.nanos(offP99) + " | " + Stats.nanos(onP50) + " / "
                    + Stats.nanos(onP99) + " | " + Stats.nanos(onP50 - offP50) + " / "
                    + Stats.nanos(onP99 - offP99) + " |");
        });
        bench.emit("");
        bench.emit("What every profiler can be measured by, relative to no profiler, median (min–max) of the paired "
                + "runs: **thread work** = units of work per CPU second of the spinning thread (its signal handler "
                + "runs on it; 1.000 = no cost), **process CPU** = CPU seconds of the whole process per unit of work "
                + "(> 1 = more CPU, the profiler's own threads included). **CPU per sample** = the spinning thread's "
                + "CPU beyond what its work took without a profiler, divided by the samples taken (median). Stack "
                + "frames: median frames of the recorded stacks (Java frames included).");
        bench.emit("");
        tableHeader("library", "native frames", "configuration", "stack frames", "samples/s", "thread work",
                "process CPU", "CPU per sample");
        forEachLibraryAndDepth((library, depth) -> {
            List<Run> none = runs.get(key(library, depth, "none"));
            for (Config c : configs) {
                if (!c.library.equals(library) || c.id.equals("none")) continue;
                List<Run> these = runs.get(key(library, depth, c.id));
                List<Double> work = new ArrayList<>(), cpu = new ArrayList<>(), perSample = new ArrayList<>(),
                        rate = new ArrayList<>();
                for (int i = 0; i < Math.min(these.size(), none.size()); i++) {
                    Run r = these.get(i), base = none.get(i);
                    double baseWorkPerCpu = base.units / base.threadCpu;
                    work.add((r.units / r.threadCpu) / baseWorkPerCpu);
                    cpu.add(r.cpuPerUnit() / base.cpuPerUnit());
                    if (r.samples > 0) {
                        perSample.add((r.threadCpu - r.units / baseWorkPerCpu) * 1e9 / r.samples);
                    }
                    if (r.samples >= 0) rate.add(r.samples / r.seconds);
                }
                bench.emit("| " + library + " | " + depth + " | " + c.label + " | " + Stats.f0(medianFrames(these))
                        + " | " + Stats.f0(Stats.median(rate)) + " | " + Stats.ratio(work) + " | "
                        + Stats.ratio(cpu) + " | " + Stats.nanos(Stats.median(perSample)) + " |");
            }
        });
        List<Double> baseRate = new ArrayList<>();
        for (Run r : runs.get(key("fp", 5, "none"))) baseRate.add(r.units / r.threadCpu);
        bench.emit("| _no profiler, units per thread CPU second (fp, 5)_ | | | | | " + Stats.f0(Stats.median(baseRate))
                + " | | |");
        bench.emit("");
        printThreadBreakdown(jdk, configs, runs);
        printAgainstAsyncProfiler(jdk, configs, runs);
    }

    /**
     * Issue 13's cost target: stackreq native=on's process CPU per unit of work against
     * async-profiler's default cstack, pair by pair (same library, depth and repetition, so runs
     * taken minutes apart are not compared), in points of the process's CPU without a profiler.
     */
    private void printAgainstAsyncProfiler(Jvm jdk, List<Config> configs, Map<String, List<Run>> runs) {
        bench.emit("stackreq native=on against async-profiler's default cstack, " + jdk.label() + ": process CPU per "
                + "unit of work, per pair of runs of the same library, depth and repetition, in points of the "
                + "process's CPU per unit without a profiler (negative: stackreq cheaper); median (quartiles), and "
                + "the pairs where stackreq was no higher. With jfrsync, async-profiler also runs the JVM's JFR "
                + "recording with stackreq's settings, the recording stackreq's events go to.");
        bench.emit("");
        tableHeader("against", "native=on − async-profiler", "pairs at or below");
        for (String id : List.of("ap-default", "ap-jfrsync")) {
            List<Double> differences = new ArrayList<>();
            forEachLibraryAndDepth((library, depth) -> {
                List<Run> none = runs.get(key(library, depth, "none"));
                List<Run> on = runs.get(key(library, depth, "stackreq-on"));
                List<Run> ap = runs.get(key(library, depth, id));
                for (int i = 0; i < Math.min(none.size(), Math.min(on.size(), ap.size())); i++) {
                    differences.add(100 * (on.get(i).cpuPerUnit() - ap.get(i).cpuPerUnit()) / none.get(i).cpuPerUnit());
                }
            });
            Collections.sort(differences);
            int n = differences.size();
            long atOrBelow = differences.stream().filter(d -> d <= 0).count();
            String quartiles = n < 4 ? "" : String.format(Locale.ROOT, " (%+.2f … %+.2f)", differences.get(n / 4),
                    differences.get((3 * n) / 4));
            String label = configs.stream().filter(c -> c.id.equals(id)).findFirst().orElseThrow().label;
            bench.emit("| " + label + " | " + String.format(Locale.ROOT, "%+.2f", Stats.median(differences))
                    + quartiles + " | " + atOrBelow + " of " + n + " |");
        }
        bench.emit("");
    }

    /**
     * Where the process's CPU goes, by thread: each thread's CPU per unit of work during the spin, in
     * percent of the whole process's CPU per unit of work in the paired run without a profiler; median
     * over every library, depth and repetition (only the spinning thread's share depends on the depth).
     * A column adds up to about 100 × its process CPU; two columns' difference in a row is what that
     * thread costs more under one configuration than under the other, in points of the process's CPU.
     */
    private void printThreadBreakdown(Jvm jdk, List<Config> configs, Map<String, List<Run>> runs) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (Config c : configs) labels.putIfAbsent(c.id, c.label);
        Set<String> groups = new TreeSet<>();
        runs.values().forEach(list -> list.forEach(r -> groups.addAll(r.threadNanos.keySet())));
        // points.get(group).get(config id): one value per paired run
        Map<String, Map<String, List<Double>>> points = new LinkedHashMap<>();
        groups.forEach(g -> points.put(g, new LinkedHashMap<>()));
        forEachLibraryAndDepth((library, depth) -> {
            List<Run> none = runs.get(key(library, depth, "none"));
            for (String id : labels.keySet()) {
                List<Run> these = runs.get(key(library, depth, id));
                if (these == null) continue;
                for (int i = 0; i < Math.min(these.size(), none.size()); i++) {
                    Run r = these.get(i), base = none.get(i);
                    double baseNanosPerUnit = totalNanos(base) / base.units;
                    for (String g : groups) {
                        double perUnit = r.threadNanos.getOrDefault(g, 0L) / r.units;
                        points.get(g).computeIfAbsent(id, x -> new ArrayList<>()).add(100 * perUnit / baseNanosPerUnit);
                    }
                }
            }
        });
        List<String> shown = new ArrayList<>(groups);
        shown.removeIf(g -> points.get(g).values().stream().allMatch(v -> Stats.median(v) < 0.05));
        shown.sort((a, b) -> Double.compare(maxMedian(points.get(b)), maxMedian(points.get(a))));
        bench.emit("Process CPU by thread, " + jdk.label() + ": each thread's CPU during the spin per unit of work, in "
                + "percent of the whole process's CPU per unit of work in the paired run without a profiler (from "
                + "`/proc/self/task/*/schedstat`; thread names as the kernel keeps them, 15 characters, pool members "
                + "added up as `#n`); median over every library, depth and repetition. A column adds up to about "
                + "100 × its process CPU; a row's difference between two columns is that thread's extra cost in "
                + "points. Threads under 0.05 everywhere are in \"other threads\"; \"(ended)\" is the CPU of "
                + "threads that ended during the spin.");
        bench.emit("");
        List<String> header = new ArrayList<>(List.of("thread"));
        header.addAll(labels.values());
        tableHeader(header.toArray(new String[0]));
        for (String g : shown) {
            StringBuilder row = new StringBuilder("| " + g.replace("|", "\\|") + " |");
            for (String id : labels.keySet()) row.append(' ').append(points2(points.get(g).get(id))).append(" |");
            bench.emit(row.toString());
        }
        StringBuilder other = new StringBuilder("| other threads |");
        StringBuilder all = new StringBuilder("| all threads |");
        for (String id : labels.keySet()) {
            other.append(' ').append(points2(sumOver(points, groups, g -> !shown.contains(g), id))).append(" |");
            all.append(' ').append(points2(sumOver(points, groups, g -> true, id))).append(" |");
        }
        bench.emit(other.toString());
        bench.emit(all.toString());
        bench.emit("");
    }

    private static double totalNanos(Run r) {
        return r.threadNanos.values().stream().mapToLong(Long::longValue).sum();
    }

    private static double maxMedian(Map<String, List<Double>> byConfig) {
        return byConfig.values().stream().mapToDouble(Stats::median).max().orElse(0);
    }

    /** Per paired run, the sum over the groups that pass the filter; null when the configuration did not run. */
    private static List<Double> sumOver(Map<String, Map<String, List<Double>>> points, Set<String> groups,
            Predicate<String> filter, String id) {
        List<Double> sums = null;
        for (String g : groups) {
            List<Double> values = points.get(g).get(id);
            if (values == null) continue;
            if (sums == null) sums = new ArrayList<>(Collections.nCopies(values.size(), 0.0));
            if (!filter.test(g)) continue;
            for (int i = 0; i < values.size(); i++) sums.set(i, sums.get(i) + values.get(i));
        }
        return sums;
    }

    private static String points2(List<Double> values) {
        return values == null || values.isEmpty() ? "–"
                : String.format(Locale.ROOT, "%.2f", Stats.median(values));
    }

    private void tableHeader(String... columns) {
        bench.emit("| " + String.join(" | ", columns) + " |");
        bench.emit("|" + "---|".repeat(columns.length));
    }

    private static double medianFrames(List<Run> runs) {
        List<Double> frames = new ArrayList<>();
        for (Run r : runs) if (r.medianFrames >= 0) frames.add((double) r.medianFrames);
        return Stats.median(frames);
    }

    /** Median over the runs of element k ({count, p50, p90, p99, max}) of the whole-request histogram. */
    private static double percentile(List<Run> runs, int k) {
        List<Double> values = new ArrayList<>();
        for (Run r : runs) if (r.whole != null) values.add((double) r.whole[k]);
        return Stats.median(values);
    }
}
