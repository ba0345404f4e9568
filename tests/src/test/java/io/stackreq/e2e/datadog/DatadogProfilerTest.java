package io.stackreq.e2e.datadog;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.function.Executable;

import io.stackreq.testapp.CpuSplit;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import io.stackreq.tests.support.OnEverySupportedJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Issue 27, item 6: Datadog's profiler, unmodified, with stackreq. Datadog's java-profiler
 * ({@code libjavaProfiler.so} of {@code com.datadoghq:dd-java-agent}, from Maven Central through
 * tests/pom.xml) with its option {@code jvmtistacks} finds RequestStackTrace and
 * InitializeRequestStackTrace with GetExtensionFunctions and calls
 * {@code RequestStackTrace(jvmti, NULL, ucontext, correlationId)} from its CPU-timer and wall-clock
 * signal handlers; its own recording has a {@code datadog.ExecutionSample} (cpu) or
 * {@code datadog.MethodSample} (wall) with that {@code correlationId}, the JVM's a
 * {@code jdk.StackTraceRequest} with it as {@code userData}.
 *
 * <p>The workload is {@link CpuSplit}: two workers split their time 3:2:1 between methodA, methodB
 * and methodC and measure it (thread CPU time and wall time) from the end of a 1 s warm-up.
 *
 * <ul>
 * <li>{@code cpu=1ms} and {@code wall=5ms}, the library loaded with {@code -agentpath} after
 * libstackreq.so, a recording started with {@code -XX:StartFlightRecording} that enables
 * jdk.StackTraceRequest: every sample of the measured window has exactly one request event with its
 * id (at least 95% of them), no event has two samples, the events' requester is
 * {@code libjavaProfiler.so}, the profiler prints no {@code [java-profiler] jvmtistacks:} warning,
 * and each method's share of the joined stacks is within 3 points of the measured split (CPU time
 * for cpu, wall time for wall). The wall-clock engine passes no ucontext, expecting the stack at
 * the next safepoint; stackreq finds the signal's context on the stack and gives the stack of the
 * moment (stackreq.h).</li>
 * <li>The deployment as users run it: {@code -javaagent:dd-java-agent.jar} with
 * {@code -Ddd.profiling.experimental.ddprof.options=jvmtistacks}; the agent starts JFR itself with
 * its own settings, which enable jdk.StackTraceRequest only through
 * {@code -Ddd.profiling.enabled.events=jdk.StackTraceRequest}, and writes every profile (the JVM's
 * recording of the period, stackreq's chunk of it, and the profiler's recording, concatenated) to
 * {@code dd.profiling.debug.dump_path}. Every profile holds the request events of its samples;
 * the profiler reports no rejected requests.</li>
 * </ul>
 */
@Tag("alone")
class DatadogProfilerTest {
    private static final String CPU_SAMPLE = "datadog.ExecutionSample";
    private static final String WALL_SAMPLE = "datadog.MethodSample";
    private static final String WARNING = "[java-profiler] jvmtistacks:";
    private static final String[] METHODS = {"methodA", "methodB", "methodC"};
    private static final String WORKLOAD = CpuSplit.class.getName();
    private static final double MIN_MATCHED = 0.95;
    private static final double MAX_SHARE_ERROR = 3;
    /**
     * Iterations of the workload's unit: about 30 ms, so methodA, B and C run 90, 60 and 30 ms at a
     * time. With CpuSplit's default (about 3 ms a unit) the profiler's CPU samples, which its
     * per-thread CPU timers deliver at the kernel's tick, give methodA 2 to 4 points too many and
     * methodC 2 to 3 too few on JDK 25 (measured on 10 s runs, 1,000 samples each): an effect at
     * the switches from one method to the next, whose share falls with their number.
     */
    private static final long UNIT = 20_000_000;

    @OnEverySupportedJdk
    void cpuSamplesJoinTheirRequestsAndSplitLikeTheWorkload(Jdk jdk) throws IOException {
        // 10 s: the profiler's per-thread CPU timers fire at the kernel's tick at most (about 110 samples a
        // second here for two busy workers, not 2,000), and 3 points must be well outside the sampling error.
        profileWithAgentPath(jdk, "cpu", "cpu=1ms", "", CPU_SAMPLE, 10);
    }

    @OnEachJdk
    void wallSamplesJoinTheirRequestsAndSplitLikeTheWorkload(Jdk jdk) throws IOException {
        // filter= (empty): every thread of the process, not only the ones Datadog's tracer registers (none
        // here), so also the JVM's own threads, which JVMTI does not show: with native=on stackreq gives
        // them events with their native stacks, where it would refuse them (UNATTACHED_THREAD, which the
        // profiler counts as rejected and warns about when they are half of its requests).
        // 10 s: about 2,000 samples in the three methods, so that sampling noise (about 1 point) stays
        // well inside the 3 points allowed; at 3 s (about 650) it was near 2 points.
        profileWithAgentPath(jdk, "wall", "wall=5ms,filter=", "native=on", WALL_SAMPLE, 10);
    }

    @OnEachJdk
    void ddJavaAgentProfilesHoldTheRequestsOfTheirSamples(Jdk jdk) throws IOException {
        Path agent = Path.of(property("stackreq.datadog.agent"));
        assertTrue(Files.isRegularFile(agent), agent + " is missing: tests/pom.xml copies it from Maven Central");
        Path dir = workDir(jdk, "dd-java-agent");
        Path dumps = Files.createDirectories(dir.resolve("profiles"));
        JvmRun run = JvmRun.on(jdk, dir).withoutRequester().name("agent").timeout(Duration.ofSeconds(120))
                .flags("-javaagent:" + agent,
                        "-Ddd.profiling.enabled=true",
                        "-Ddd.profiling.ddprof.enabled=true",
                        "-Ddd.profiling.experimental.ddprof.options=jvmtistacks",
                        // the agent's own JFR settings (jfr/dd.jfp) leave jdk.StackTraceRequest off
                        "-Ddd.profiling.enabled.events=jdk.StackTraceRequest",
                        "-Ddd.profiling.debug.dump_path=" + dumps,
                        "-Ddd.profiling.upload.period=2",
                        "-Ddd.profiling.start-delay=0",
                        "-Ddd.profiling.start-force-first=true",
                        "-Ddd.trace.enabled=false",
                        // no backend: uploads and telemetry fail at once, harmlessly
                        "-Ddd.agent.host=127.0.0.1",
                        "-Ddd.trace.agent.port=9");
        Report truth = run.runForReport(CpuSplit.class, "threads=2", "unit=" + UNIT, "warmupSeconds=1",
                "seconds=6");
        List<String> output = output(dir, "agent");

        List<Path> all;
        try (Stream<Path> files = Files.list(dumps)) {
            all = files.filter(p -> p.getFileName().toString().endsWith(".jfr")).sorted().toList();
        }
        // The agent opens the profile of the period the JVM exits in and cannot write it any more.
        List<Path> written = all.stream().filter(p -> p.toFile().length() > 0).toList();
        List<Profile> profiles = new ArrayList<>();
        for (Path file : written) {
            profiles.add(Profile.read(file));
        }
        profiles.removeIf(p -> p.samples.isEmpty() && p.requests.isEmpty());
        profiles.sort(Comparator.comparing(Profile::firstTime));

        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "%s dd-java-agent: %d profiles written (%d files, the rest empty):", jdk, profiles.size(), all.size()));
        long samples = 0;
        long sameProfile = 0;
        long nextProfile = 0;
        long lostWithLast = 0;
        List<String> problems = new ArrayList<>();
        Set<String> requesters = new HashSet<>();
        for (int k = 0; k < profiles.size(); k++) {
            Profile profile = profiles.get(k);
            Profile next = k + 1 < profiles.size() ? profiles.get(k + 1) : null;
            profile.requests.values().forEach(list -> list.forEach(r -> requesters.add(r.getString("requester"))));
            Instant lastMatched = Instant.MIN;
            for (RecordedEvent sample : profile.samples) {
                long id = sample.getLong("correlationId");
                if (id != 0 && profile.requests.containsKey(id)) {
                    lastMatched = max(lastMatched, sample.getStartTime());
                }
            }
            long same = 0;
            long crossing = 0;
            long lost = 0;
            for (RecordedEvent sample : profile.samples) {
                long id = sample.getLong("correlationId");
                if (id == 0) {
                    continue;
                }
                samples++;
                List<RecordedEvent> here = profile.requests.getOrDefault(id, List.of());
                boolean tail = sample.getStartTime().isAfter(lastMatched);
                if (here.size() == 1) {
                    same++;
                } else if (here.size() > 1) {
                    problems.add(profile.name() + ": " + here.size() + " request events with userData " + id);
                } else if (tail && next != null && next.requests.getOrDefault(id, List.of()).size() == 1) {
                    // taken after the JVM's recording of this period was cut and before the profiler's was
                    crossing++;
                } else if (tail && next == null) {
                    lost++;
                } else {
                    problems.add(String.format(Locale.ROOT, "%s: the sample %d at %s has no request event in this "
                            + "profile%s", profile.name(), id, sample.getStartTime(),
                            tail ? " or the next" : " (before the last joined sample of the profile)"));
                }
            }
            sameProfile += same;
            nextProfile += crossing;
            lostWithLast += lost;
            table.append(String.format(Locale.ROOT, "%n  %s: %d samples, %d requests; %d joined in the profile, "
                    + "%d (its last) in the next one%s", profile.name(), profile.samples.size(),
                    profile.requestCount(), same, crossing, next == null ? ", " + lost + " (its last) nowhere: "
                            + "the next profile is the one the JVM exited in" : ""));
        }
        double[] cpu = shares(truth, "cpu");
        table.append(String.format(Locale.ROOT, "%n  requesters %s; the workload's CPU split %.1f/%.1f/%.1f%%; "
                + "stackreq %s", requesters, cpu[0], cpu[1], cpu[2], lastStatistics(written)));
        List<String> rejected = output.stream().filter(l -> l.startsWith(WARNING) && l.contains("rejected")).toList();
        List<String> warnings = output.stream().filter(l -> l.startsWith(WARNING)).toList();
        table.append("\n  profiler warnings: ").append(warnings);
        System.out.println(table);

        String context = table + "\n" + JvmRun.tail(String.join("\n", output), 6000);
        long total = samples;
        long joined = sameProfile;
        assertAll(
                () -> assertTrue(profiles.size() >= 2, () -> "fewer than two profiles\n" + context),
                () -> assertTrue(profiles.stream().allMatch(p -> !p.samples.isEmpty() && p.requestCount() > 0),
                        () -> "a profile without samples or request events\n" + context),
                () -> assertTrue(problems.isEmpty(), () -> problems.size() + " samples not joined: "
                        + problems.subList(0, Math.min(20, problems.size())) + "\n" + context),
                () -> assertTrue(total > 0 && joined >= MIN_MATCHED * total, () -> String.format(Locale.ROOT,
                        "%d of %d samples joined in their own profile (need %.0f%%)%n%s", joined, total,
                        100 * MIN_MATCHED, context)),
                () -> assertTrue(!requesters.isEmpty() && requesters.stream()
                        .allMatch(r -> Pattern.matches("libjavaProfiler(-dd-tmp\\d+)?\\.so", r)),
                        () -> "requester is not Datadog's library: " + requesters + "\n" + context),
                () -> assertTrue(rejected.isEmpty(), () -> "the profiler reports rejected requests: " + rejected
                        + "\n" + context));
    }

    /**
     * Issue 27, items 7 and 8: Datadog's profiler and stackreq's perf agent request in one JVM at
     * the same time, their user_data overlapping (both count from 1). Each event names its
     * requester; each sample has exactly one event of its own requester with its id, on its own
     * OS thread, and the CLI's report
     * of each sample source (the perf agent's samples.jsonl, Datadog's JFR file as --samples)
     * joins exactly those, none twice, and splits like the workload.
     */
    @OnEachJdk
    void twoProfilersInOneJvmEachJoinTheirOwnEvents(Jdk jdk) throws IOException {
        Path library = Path.of(property("stackreq.datadog.profiler"));
        Path dir = workDir(jdk, "two-profilers");
        Path out = dir.resolve("out");
        Path ddFile = dir.resolve("dd.jfr");
        Path truthFile = dir.resolve("truth.txt");
        List<String> args = new ArrayList<>(List.of("profile", "-e", "task-clock", "-i", "1ms", "-o", out.toString(),
                "--java", jdk.java().toString(), "--",
                "-agentpath:" + library.toAbsolutePath() + "=start,cpu=1ms,jvmtistacks,file=" + ddFile,
                "-cp", JvmRun.testClasses().toAbsolutePath().toString(), CpuSplit.class.getName(),
                "out=" + truthFile, "threads=2", "unit=" + UNIT, "warmupSeconds=1", "seconds=6"));
        JvmRun.Result profiled = JvmRun.cli(Jdk.current(), dir, args).name("profile")
                .timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, profiled.exitCode(), () -> "stackreq profile with Datadog's profiler failed\n" + profiled);
        Path recording = out.resolve("recording.jfr");
        Path perfSamples = out.resolve("samples.jsonl");
        Report truth = Report.read(truthFile);

        Map<String, Map<Long, List<RecordedEvent>>> byRequester = new HashMap<>();
        for (RecordedEvent event : JfrFile.requests(recording)) {
            byRequester.computeIfAbsent(event.getString("requester"), r -> new HashMap<>())
                    .computeIfAbsent(event.getLong("userData"), id -> new ArrayList<>()).add(event);
        }
        Map<Long, List<RecordedEvent>> perfEvents = byRequester.getOrDefault("libstackreq-perf.so", Map.of());
        Map<Long, List<RecordedEvent>> ddEvents = byRequester.getOrDefault("libjavaProfiler.so", Map.of());
        long overlapping = perfEvents.keySet().stream().filter(ddEvents::containsKey).count();

        long perfAccepted = 0;
        List<String> perfWrong = new ArrayList<>();
        for (String line : Files.readAllLines(perfSamples)) {
            JsonNode sample = JSON.readTree(line);
            if (!sample.path("type").asText().equals("sample") || sample.path("error").asInt() != 0) {
                continue;
            }
            perfAccepted++;
            List<RecordedEvent> events = perfEvents.getOrDefault(sample.path("userData").asLong(), List.of());
            RecordedThread thread = events.size() == 1 ? events.get(0).getThread() : null;
            if (thread == null || thread.getOSThreadId() != sample.path("tid").asLong()) {
                perfWrong.add(line + " -> " + events.stream().map(JfrFile::describe).toList());
            }
        }
        long ddDelegated = 0;
        List<String> ddWrong = new ArrayList<>();
        for (RecordedEvent sample : JfrFile.events(ddFile, CPU_SAMPLE)) {
            long id = sample.getLong("correlationId");
            if (id == 0) {
                continue;
            }
            ddDelegated++;
            List<RecordedEvent> events = ddEvents.getOrDefault(id, List.of());
            RecordedThread thread = events.size() == 1 ? events.get(0).getThread() : null;
            // By OS thread: Datadog names the thread that created the JVM after its end (DestroyJavaVM).
            if (thread == null || sample.getThread() == null
                    || thread.getOSThreadId() != sample.getThread().getOSThreadId()) {
                ddWrong.add(id + " on " + (sample.getThread() == null ? "?" : sample.getThread().getJavaName())
                        + " -> " + events.stream().map(JfrFile::describe).toList());
            }
        }

        long perfCount = perfAccepted;
        long ddCount = ddDelegated;
        JsonNode perfReport = cliReport(dir, recording, perfSamples);
        JsonNode ddReport = cliReport(dir, recording, ddFile);
        double[] cpu = shares(truth, "cpu");
        double workloadCpuMillis = (truth.getLong("cpu.A") + truth.getLong("cpu.B") + truth.getLong("cpu.C")) / 1e6;
        String context = String.format(Locale.ROOT, "%s: %d perf samples accepted (workload CPU %.0f ms), %d wrong; %d Datadog samples "
                + "delegated, %d wrong; %d user_data values requested by both; requesters %s; CPU truth "
                + "%.1f/%.1f/%.1f%%%nperf report: %s%nDatadog report: %s%nDatadog samples not on their event's "
                + "thread: %s", jdk, perfCount, workloadCpuMillis, perfWrong.size(), ddCount, ddWrong.size(), overlapping,
                byRequester.keySet(), cpu[0], cpu[1], cpu[2], summary(perfReport), summary(ddReport), ddWrong.subList(0, Math.min(5, ddWrong.size())));
        System.out.println(context);
        List<Executable> checks = new ArrayList<>(List.of(
                () -> assertTrue(perfCount >= 500 && ddCount >= 200, () -> "too few samples\n" + context),
                // task-clock at 1 ms: a sample per ms of the workload's CPU time, and more (the warm-up).
                // Both profilers raise SIGPROF, and the kernel merges one into the other when they
                // meet on a thread: a thread whose counter then stopped was sampled no more.
                () -> assertTrue(perfCount >= 0.8 * workloadCpuMillis, () -> "the perf agent's samples cover "
                        + "less of the workload's CPU time than one a millisecond: a thread stopped being sampled\n"
                        + context),
                () -> assertTrue(overlapping >= 100, () -> "the two user_data spaces hardly overlap: the test "
                        + "proves nothing\n" + context),
                () -> assertTrue(perfWrong.isEmpty(), () -> "perf samples without exactly one own event on their "
                        + "thread: " + perfWrong.subList(0, Math.min(5, perfWrong.size())) + "\n" + context),
                () -> assertTrue(ddWrong.size() <= 0.05 * ddCount, () -> "Datadog samples without exactly one "
                        + "own event on their thread: " + ddWrong.subList(0, Math.min(5, ddWrong.size())) + "\n"
                        + context),
                () -> assertEquals("libstackreq-perf.so", perfReport.path("scope").path("requester").asText(),
                        () -> context),
                () -> assertEquals("libjavaProfiler.so", ddReport.path("scope").path("requester").asText(),
                        () -> context),
                // Joined: with a stack (matched) or with a failed event.
                () -> assertEquals(perfCount, joined(perfReport), () -> context),
                () -> assertEquals(ddCount - ddWrong.size(), joined(ddReport), () -> context),
                () -> assertEquals(0, perfReport.path("quality").path("duplicateEvents").asLong(), () -> context),
                () -> assertEquals(0, ddReport.path("quality").path("duplicateEvents").asLong(), () -> context)));
        for (JsonNode report : List.of(perfReport, ddReport)) {
            for (int i = 0; i < METHODS.length; i++) {
                int m = i;
                checks.add(() -> assertEquals(cpu[m], selfPct(report, WORKLOAD + "." + METHODS[m]) / workloadPct(report)
                        * 100, MAX_SHARE_ERROR, () -> METHODS[m] + "'s share of the workload in "
                        + report.path("scope") + "\n" + context));
            }
        }
        assertAll(checks);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code stackreq report RECORDING --samples SAMPLES --format json --top 0}. */
    private static JsonNode cliReport(Path dir, Path recording, Path samples) throws IOException {
        List<String> args = List.of("report", recording.toString(), "--samples", samples.toString(), "--format",
                "json", "--top", "0");
        JvmRun.Result result = JvmRun.cli(Jdk.current(), dir, args).name("report-" + samples.getFileName())
                .timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, result.exitCode(), () -> "report failed\n" + result);
        return JSON.readTree(result.stdout());
    }

    private static long joined(JsonNode report) {
        return report.path("quality").path("matched").asLong() + report.path("quality").path("failedEvent").asLong();
    }

    private static double selfPct(JsonNode report, String method) {
        for (JsonNode entry : report.path("entries")) {
            if (entry.path("name").asText().equals(method)) {
                return entry.path("selfPct").asDouble();
            }
        }
        return 0;
    }

    /** The workload methods' share of the report, so that their split compares with the workload's. */
    private static double workloadPct(JsonNode report) {
        double sum = 0;
        for (String method : METHODS) {
            sum += selfPct(report, WORKLOAD + "." + method);
        }
        return sum;
    }

    private static String summary(JsonNode report) {
        StringBuilder text = new StringBuilder(report.path("scope").toString()).append(" joined ")
                .append(joined(report)).append(" (failed events ")
                .append(report.path("quality").path("failedEvent").asLong()).append(")");
        for (String method : METHODS) {
            text.append(String.format(Locale.ROOT, " %s %.2f%%", method, selfPct(report, WORKLOAD + "." + method)));
        }
        return text.toString();
    }

    private static void profileWithAgentPath(Jdk jdk, String mode, String modeOptions, String stackreqOptions,
            String sampleType, int seconds) throws IOException {
        Path library = Path.of(property("stackreq.datadog.profiler"));
        assertTrue(Files.isRegularFile(library), library + " is missing: tests/pom.xml unpacks it from Maven Central");
        Path dir = workDir(jdk, mode);
        Path ddFile = dir.resolve("dd.jfr");
        Path jvmFile = dir.resolve("jvm.jfr");
        JvmRun run = JvmRun.on(jdk, dir).withoutRequester().stackreqOptions(stackreqOptions).name(mode)
                .timeout(Duration.ofSeconds(90))
                .flags("-agentpath:" + library.toAbsolutePath() + "=start," + modeOptions + ",jvmtistacks,file="
                        + ddFile)
                .recordingTo(jvmFile);
        Report truth = run.runForReport(CpuSplit.class, "threads=2", "unit=" + UNIT, "warmupSeconds=1",
                "seconds=" + seconds);
        List<String> output = output(dir, mode);
        Instant from = epoch(truth.getLong("window.start"));
        Instant to = epoch(truth.getLong("window.end"));

        List<RecordedEvent> samples = JfrFile.events(ddFile, sampleType);
        Map<Long, List<RecordedEvent>> requests = new HashMap<>();
        for (RecordedEvent request : JfrFile.requests(jvmFile)) {
            requests.computeIfAbsent(request.getLong("userData"), id -> new ArrayList<>()).add(request);
        }
        Map<Long, Integer> samplesPerId = new HashMap<>();
        for (RecordedEvent sample : samples) {
            long id = sample.getLong("correlationId");
            if (id != 0) {
                samplesPerId.merge(id, 1, Integer::sum);
            }
        }
        long sharedIds = samplesPerId.values().stream().filter(n -> n > 1).count();
        long sharedUserData = requests.values().stream().filter(list -> list.size() > 1).count();

        long inWindow = 0;
        long matched = 0;
        List<RecordedEvent> joined = new ArrayList<>();
        Set<String> requesters = new HashSet<>();
        for (RecordedEvent sample : samples) {
            long id = sample.getLong("correlationId");
            Instant time = sample.getStartTime();
            if (id == 0 || time.isBefore(from) || time.isAfter(to)) {
                continue;
            }
            inWindow++;
            List<RecordedEvent> events = requests.getOrDefault(id, List.of());
            if (events.size() == 1) {
                matched++;
                joined.add(events.get(0));
                requesters.add(events.get(0).getString("requester"));
            }
        }

        // Each method's share: the workload method nearest the top of each joined stack.
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String method : METHODS) {
            counts.put(method, 0L);
        }
        long failed = joined.stream().filter(e -> e.getBoolean("failed")).count();
        long biased = joined.stream().filter(e -> e.getBoolean("biased")).count();
        Map<String, Long> others = new TreeMap<>();
        for (RecordedEvent event : joined) {
            String method = workloadMethod(event);
            if (method != null) {
                counts.merge(method, 1L, Long::sum);
            } else {
                String top = event.getBoolean("failed") ? "<failed>" : String.valueOf(JfrFile.topMethod(event));
                others.merge(top, 1L, Long::sum);
            }
        }
        long attributed = counts.values().stream().mapToLong(Long::longValue).sum();
        String truthKind = mode.equals("cpu") ? "cpu" : "wall";
        double[] truthShares = shares(truth, truthKind);
        double[] cpuShares = shares(truth, "cpu");
        double[] measured = new double[METHODS.length];
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "%s %s: %d of %d samples in the measured window joined exactly one jdk.StackTraceRequest (%.1f%%); "
                        + "%d joined events failed, %d biased; share of %s, measured vs %s truth (cpu truth):",
                jdk, mode, matched, inWindow, inWindow == 0 ? 0 : 100.0 * matched / inWindow, failed, biased,
                String.join("+", METHODS), truthKind));
        for (int i = 0; i < METHODS.length; i++) {
            measured[i] = attributed == 0 ? Double.NaN : 100.0 * counts.get(METHODS[i]) / attributed;
            table.append(String.format(Locale.ROOT, " %s %.2f%% vs %.2f%% (%.2f%%);", METHODS[i], measured[i],
                    truthShares[i], cpuShares[i]));
        }
        table.append(String.format(Locale.ROOT, " %d joined stacks without a workload method, by top frame: %s",
                joined.size() - attributed, top(others, 6)));
        System.out.println(table);

        List<String> warnings = output.stream().filter(line -> line.startsWith(WARNING)).toList();
        String statistics = JfrFile.describeStatistics(JfrFile.lastStatistics(jvmFile));
        String context = table + "\nstackreq: " + statistics + "\n" + JvmRun.tail(String.join("\n", output), 4000);
        long samplesMatched = matched;
        long samplesInWindow = inWindow;
        List<Executable> checks = new ArrayList<>(List.of(
                () -> assertTrue(samplesInWindow > 0 && samplesMatched >= MIN_MATCHED * samplesInWindow,
                        () -> String.format(Locale.ROOT, "%d of %d %s in the measured window joined exactly one "
                                + "jdk.StackTraceRequest (need %.0f%%)%n%s", samplesMatched, samplesInWindow,
                                sampleType, 100 * MIN_MATCHED, context)),
                () -> assertEquals(0, sharedIds, () -> sharedIds + " correlationIds belong to more than one sample\n"
                        + context),
                () -> assertEquals(0, sharedUserData, () -> sharedUserData + " userData values belong to more than "
                        + "one jdk.StackTraceRequest\n" + context),
                () -> assertEquals(Set.of("libjavaProfiler.so"), requesters, () -> "requester of the joined events\n"
                        + context),
                () -> assertTrue(warnings.isEmpty(), () -> "the profiler warns: " + warnings
                        + (warnings.stream().anyMatch(w -> w.contains("NOT_AVAILABLE")) ? "\n(the requests it counts "
                                + "as NOT_AVAILABLE are every one that was not WRONG_PHASE: stackreq's rejectedOther "
                                + "is UNATTACHED_THREAD, threads stackreq does not know, e.g. JIT compiler and "
                                + "other VM threads)" : "") + "\n" + context),
                () -> assertTrue(attributed >= 100, () -> "only " + attributed + " joined stacks hold a workload "
                        + "method\n" + context)));
        for (int i = 0; i < METHODS.length && attributed >= 100; i++) {
            int m = i;
            checks.add(() -> assertEquals(truthShares[m], measured[m], MAX_SHARE_ERROR, () -> METHODS[m]
                    + "'s share\n" + context));
        }
        assertAll(checks);
    }

    /** The first frame from the top in one of the workload's methods, or null. */
    private static String workloadMethod(RecordedEvent event) {
        if (event.getStackTrace() == null) {
            return null;
        }
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            String method = JfrFile.methodOf(frame);
            for (String name : METHODS) {
                if (method.equals(WORKLOAD + "." + name)) {
                    return name;
                }
            }
        }
        return null;
    }

    private static double[] shares(Report truth, String kind) {
        double[] values = new double[METHODS.length];
        double sum = 0;
        for (int i = 0; i < METHODS.length; i++) {
            values[i] = truth.getLong(kind + "." + (char) ('A' + i));
            sum += values[i];
        }
        for (int i = 0; i < METHODS.length; i++) {
            values[i] = 100 * values[i] / sum;
        }
        return values;
    }

    private static String top(Map<String, Long> counts, int n) {
        return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n)
                .map(e -> e.getKey() + "=" + e.getValue()).toList().toString();
    }

    private static String lastStatistics(List<Path> profiles) {
        RecordedEvent last = null;
        for (Path profile : profiles) {
            for (RecordedEvent event : JfrFile.events(profile, JfrFile.STATISTICS)) {
                if (last == null || event.getStartTime().isAfter(last.getStartTime())) {
                    last = event;
                }
            }
        }
        return last == null ? "no statistics event" : JfrFile.describeStatistics(last);
    }

    /** One profile the agent dumped: the JVM's recording of the period, stackreq's events, the profiler's. */
    private record Profile(Path file, List<RecordedEvent> samples, Map<Long, List<RecordedEvent>> requests) {
        static Profile read(Path file) {
            List<RecordedEvent> samples = new ArrayList<>();
            Map<Long, List<RecordedEvent>> requests = new HashMap<>();
            try (RecordingFile recording = new RecordingFile(file)) {
                while (recording.hasMoreEvents()) {
                    RecordedEvent event = recording.readEvent();
                    String type = event.getEventType().getName();
                    if (type.equals(CPU_SAMPLE) || type.equals(WALL_SAMPLE)) {
                        samples.add(event);
                    } else if (type.equals(JfrFile.REQUEST)) {
                        requests.computeIfAbsent(event.getLong("userData"), id -> new ArrayList<>()).add(event);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
            samples.sort(Comparator.comparing(RecordedEvent::getStartTime));
            return new Profile(file, samples, requests);
        }

        String name() {
            return file.getFileName().toString();
        }

        long requestCount() {
            return requests.values().stream().mapToLong(List::size).sum();
        }

        Instant firstTime() {
            Instant first = Instant.MAX;
            for (RecordedEvent sample : samples) {
                first = min(first, sample.getStartTime());
            }
            for (List<RecordedEvent> list : requests.values()) {
                for (RecordedEvent request : list) {
                    first = min(first, request.getStartTime());
                }
            }
            return first;
        }
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    private static Instant max(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    private static Instant epoch(long nanos) {
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    private static Path workDir(Jdk jdk, String name) throws IOException {
        Path dir = JvmRun.targetDir().resolve("e2e-datadog").resolve("jdk" + jdk.feature()).resolve(name);
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
        return Files.createDirectories(dir);
    }

    /** The JVM's stdout lines, then its stderr's. */
    private static List<String> output(Path dir, String name) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(dir.resolve(name + ".out"), StandardCharsets.UTF_8));
        lines.addAll(Files.readAllLines(dir.resolve(name + ".err"), StandardCharsets.UTF_8));
        return lines;
    }

    private static String property(String key) {
        String value = System.getProperty(key);
        if (value == null) {
            throw new IllegalStateException("system property " + key + " is not set: run through tests/run or mvn");
        }
        return value;
    }
}
