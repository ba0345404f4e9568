package bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The benchmark driver behind {@code tests/bench/run}: launches the workloads under each
 * profiler configuration, alternating the configurations, and prints markdown tables.
 *
 * <p>Paths come as system properties from the run script: {@code bench.native} (libstackreq.so,
 * libstackreq-perf.so and the events jar), {@code bench.asprof} (libasyncProfiler.so),
 * {@code bench.cp} (workload class path), {@code bench.work} (run directories),
 * {@code bench.emitter} (the native emitter benchmark), {@code bench.testNative} (the native-depth
 * workload's JNI libraries), {@code bench.cli} (the CLI jar), {@code bench.jfrConverter}
 * (async-profiler's converter), {@code bench.measuredOn} (the line that names the commit, date and
 * command the results come from).
 */
public final class Bench {
    final boolean quick;
    final List<Jvm> jdks = new ArrayList<>();
    final Set<String> parts = new LinkedHashSet<>();
    final int reps;
    /** Length of the continuous-recording memory run (--minutes). */
    int continuousMinutes = 30;
    /** Length of the soak (--minutes, else 120). */
    int soakMinutes = 120;
    /** --walker: the agent's walker= option in the latency part (empty: its default). */
    String walker = "";
    /** The apps part: which applications (--apps), seconds of measured work and of warm-up per run. */
    List<String> apps = io.stackreq.apps.App.NAMES;
    double appSeconds = 20;
    double appWarmupSeconds = 10;
    /** The apps part's configurations (--app-configs), by id (AppsPart.CONFIGS); all when empty. */
    List<String> appConfigs = List.of();
    final Path nativeDir = Path.of(System.getProperty("bench.native"));
    final Path asyncProfiler = Path.of(System.getProperty("bench.asprof"));
    final String classpath = System.getProperty("bench.cp");
    final Path work;
    final Path emitterBench = Path.of(System.getProperty("bench.emitter", "/nonexistent"));
    final Path testNativeDir = Path.of(System.getProperty("bench.testNative", "/nonexistent"));
    private final PrintStream out;
    private final StringBuilder report = new StringBuilder();
    /** "Measured on commit ..., date UTC: `tests/bench/run ...`", the line under the title. */
    String measuredOn = "";

    static final List<String> PARTS =
            List.of("overhead", "latency", "emitter", "memory", "vthreads", "continuous", "native", "native-depth", "soak",
                    "apps", "flame");

    private Bench(boolean quick, List<Path> jdkHomes, Set<String> parts, int reps) throws IOException {
        this.quick = quick;
        for (Path home : jdkHomes) jdks.add(new Jvm(home));
        this.parts.addAll(parts);
        this.reps = reps;
        this.work = Path.of(System.getProperty("bench.work"))
                .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(work);
        this.out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    }

    static void usage(String problem) {
        System.err.println("tests/bench/run: " + problem);
        System.err.println("usage: tests/bench/run [--quick] [--jdk PATH]... [--reps N] [--minutes N]"
                + " [--walker asgct|vmstructs] [--apps a,b] [--app-seconds S] [--app-warmup S] [--app-configs c,d]"
                + " [--only overhead,latency,emitter,memory,vthreads,continuous,native,native-depth,soak,apps,flame]");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        List<Path> jdks = new ArrayList<>();
        Set<String> parts = new LinkedHashSet<>(List.of("overhead", "latency", "emitter", "memory", "vthreads"));
        int reps = -1;
        int minutes = -1;
        String walker = "";
        List<String> apps = null;
        List<String> appConfigs = List.of();
        double appSeconds = -1, appWarmup = -1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick": quick = true; break;
                case "--jdk":
                    if (++i == args.length) usage("--jdk needs a path");
                    jdks.add(Path.of(args[i]));
                    break;
                case "--minutes":
                    if (++i == args.length) usage("--minutes needs a number");
                    minutes = Integer.parseInt(args[i]);
                    break;
                case "--walker":
                    if (++i == args.length) usage("--walker needs asgct or vmstructs");
                    walker = args[i];
                    break;
                case "--apps":
                    if (++i == args.length) usage("--apps needs a list");
                    apps = List.of(args[i].split(","));
                    for (String app : apps) {
                        if (!io.stackreq.apps.App.NAMES.contains(app)) usage("unknown application '" + app + "'");
                    }
                    break;
                case "--app-seconds":
                    if (++i == args.length) usage("--app-seconds needs a number");
                    appSeconds = Double.parseDouble(args[i]);
                    break;
                case "--app-configs":
                    if (++i == args.length) usage("--app-configs needs a list");
                    appConfigs = List.of(args[i].split(","));
                    break;
                case "--app-warmup":
                    if (++i == args.length) usage("--app-warmup needs a number");
                    appWarmup = Double.parseDouble(args[i]);
                    break;
                case "--reps":
                    if (++i == args.length) usage("--reps needs a number");
                    reps = Integer.parseInt(args[i]);
                    break;
                case "--only":
                    if (++i == args.length) usage("--only needs a list");
                    parts.clear();
                    for (String p : args[i].split(",")) {
                        if (!PARTS.contains(p)) {
                            usage("unknown part '" + p + "'");
                        }
                        parts.add(p);
                    }
                    break;
                default: usage("unknown argument '" + args[i] + "'");
            }
        }
        if (jdks.isEmpty()) {
            // Found by tests/bench/run.
            jdks.add(Path.of(System.getProperty("bench.jdk17")));
            // --quick stays under ~5 minutes with one JDK; name both with --jdk to run both.
            if (!quick) jdks.add(Path.of(System.getProperty("bench.jdk25")));
        }
        if (reps < 0) reps = quick ? 2 : 5;
        Bench bench = new Bench(quick, jdks, parts, reps);
        if (minutes > 0) {
            bench.continuousMinutes = minutes;
            bench.soakMinutes = minutes;
        }
        bench.walker = walker;
        if (apps != null) bench.apps = apps;
        bench.appConfigs = appConfigs;
        bench.appSeconds = appSeconds > 0 ? appSeconds : quick ? 4 : 20;
        bench.appWarmupSeconds = appWarmup >= 0 ? appWarmup : quick ? 3 : 10;
        bench.measuredOn = System.getProperty("bench.measuredOn", "Measured on an unknown commit");
        bench.run();
    }

    private void run() throws Exception {
        long start = System.nanoTime();
        String jdkList = String.join(", ", jdks.stream().map(Jvm::label).toArray(String[]::new));
        emit("# stackreq benchmarks (" + (quick ? "--quick" : "full") + ", " + jdkList + ", " + reps + " repetitions)");
        emit("");
        emit(measuredOn);
        emit("");
        emit("Shared 2-vCPU VM (other jobs running): figures are ratios of runs alternated A/B/A/B, or "
                + "distributions; absolute times vary from run to run. Run directories: `" + work + "`.");
        emit("");
        if (parts.contains("overhead")) new OverheadPart(this).run();
        if (parts.contains("latency")) new LatencyPart(this).run();
        if (parts.contains("emitter")) new EmitterPart(this).run();
        if (parts.contains("memory")) new MemoryPart(this).run();
        if (parts.contains("vthreads")) new VirtualThreadsPart(this).run();
        if (parts.contains("continuous")) new ContinuousPart(this).run();
        if (parts.contains("native")) new NativeFramesPart(this).run();
        if (parts.contains("native-depth")) new NativeDepthPart(this).run();
        if (parts.contains("soak")) new SoakPart(this).run();
        if (parts.contains("apps")) new AppsPart(this).run();
        if (parts.contains("flame")) new FlamePart(this).run();
        emit(String.format("_Total %.0f s._", (System.nanoTime() - start) / 1e9));
        Files.writeString(work.resolve("results.md"), report.toString());
        progress("tables also in " + work.resolve("results.md"));
    }

    /** A line of the report: printed at once and kept for results.md. */
    void emit(String line) {
        out.println(line);
        report.append(line).append('\n');
    }

    static void progress(String line) {
        System.err.println("bench: " + line);
    }

    Path lib(String name) { return nativeDir.resolve(name); }

    /** A JFR settings file holding only the given event settings, written once to the work directory. */
    Path settings(String name, String eventsXml) throws IOException {
        Path file = work.resolve(name + ".jfc");
        if (!Files.exists(file)) {
            Files.writeString(file, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    + "<configuration version=\"2.0\" label=\"stackreq bench " + name + "\">\n" + eventsXml
                    + "</configuration>\n");
        }
        return file;
    }

    Path stackreqSettings() throws IOException {
        return settings("stackreq",
                "  <event name=\"jdk.StackTraceRequest\"><setting name=\"enabled\">true</setting></event>\n");
    }
}
