import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stackreq.tests.support.MethodSplit;

/**
 * tests/aarch64.sh attach's check, run with the host's JDK and the test classes' class path (java
 * -cp CLASSPATH CheckAttach.java PROFILE_DIR REPORT.json BEFORE AFTER): stackreq profile --pid
 * on MainThreadTarget, started without agents, against what the target measured with its threads'
 * CPU clocks (BEFORE and AFTER, its "cpu A B C woken" lines before and after the profile), as
 * AttachMainThreadTest asks on x86_64: every output written; main sampled, and the pool thread,
 * each with a quarter of the samples at least (both run the same mix all the time); methodA,
 * methodB and methodC nearly all of the samples and each one's share of the three within 3 points
 * of its share of their CPU time, from at least 500 matched samples; no request refused with
 * UNATTACHED_THREAD; every accepted request one event with its sample. Prints the numbers either
 * way; exits 1 with one line per broken rule.
 */
public final class CheckAttach {
    private static final double BOUND_POINTS = 3;
    private static final int MINIMUM_MATCHED = 500;
    private static final String[] METHODS = {"io.stackreq.demo.TwoPhase.methodA", "io.stackreq.demo.TwoPhase.methodB",
            "io.stackreq.testapp.AttachTarget.methodC"};
    private static final String[] THREADS = {"main", "main-target-pool"};
    private static final List<String> OUTPUTS =
            List.of("recording.jfr", "samples.jsonl", "report.txt", "flame.html", "profile.jfr");
    private static final String UNATTACHED_THREAD = "115";

    public static void main(String[] args) throws IOException {
        Path profile = Path.of(args[0]);
        ObjectMapper json = new ObjectMapper();
        JsonNode report = json.readTree(Path.of(args[1]).toFile());
        JsonNode quality = report.path("quality");
        List<String> broken = new ArrayList<>();
        for (String name : OUTPUTS) {
            Path file = profile.resolve(name);
            if (!Files.isRegularFile(file) || Files.size(file) == 0) broken.add(file + " is missing or empty");
        }
        checkSplit(report, cpuLine(args[2]), cpuLine(args[3]), broken);
        checkThreads(report, broken);

        List<String> lines = Files.readAllLines(profile.resolve("samples.jsonl"));
        JsonNode end = lines.isEmpty() ? json.createObjectNode() : json.readTree(lines.get(lines.size() - 1));
        if (!end.path("type").asText().equals("end")) broken.add("samples.jsonl has no end line");
        if (end.path("errors").has(UNATTACHED_THREAD)) broken.add("requests refused with UNATTACHED_THREAD: " + end);

        JsonNode statistics = quality.path("statistics");
        long accepted = statistics.path("accepted").asLong();
        long emitted = statistics.path("emitted").asLong();
        long dropped = statistics.path("dropped").asLong();
        System.out.printf(Locale.ROOT, "CheckAttach: accepted %d, emitted %d, dropped %d; samples without their"
                + " event %d, events without their sample %d, repeated events %d, repeated samples %d; samples'"
                + " end line %s%n",
                accepted, emitted, dropped, quality.path("noEvent").asLong(),
                quality.path("eventsWithoutSample").asLong(), quality.path("duplicateEvents").asLong(),
                quality.path("duplicateSamples").asLong(), end);
        if (accepted != emitted + dropped) {
            broken.add("accepted " + accepted + " != emitted + dropped " + (emitted + dropped));
        }
        for (String count : List.of("noEvent", "eventsWithoutSample", "duplicateEvents", "duplicateSamples")) {
            long value = quality.path(count).asLong();
            if (value != 0) broken.add(count + " is " + value + ", not 0");
        }
        for (String rule : broken) System.out.println("BROKEN: " + rule);
        System.exit(broken.isEmpty() ? 0 : 1);
    }

    /** Each method's share of the three in the profile against its share of their CPU time. */
    private static void checkSplit(JsonNode report, long[] before, long[] after, List<String> broken) {
        MethodSplit split = MethodSplit.of(report, METHODS, before, after);
        double[] measured = split.measured();
        double[] truth = split.truth();
        double measuredSum = split.measuredSum();
        JsonNode quality = report.path("quality");
        System.out.println(String.format(Locale.ROOT, "CheckAttach: share of methodA + methodB + methodC, profile vs"
                + " CPU:%s; %,d matched, %,d whose event has no stack", split.describe(),
                quality.path("matched").asLong(), quality.path("failedEvent").asLong()));
        for (int i = 0; i < METHODS.length; i++) {
            if (Math.abs(measured[i] - truth[i]) > BOUND_POINTS) {
                broken.add(String.format(Locale.ROOT, "%s's share %.1f%% is more than %.0f points from its CPU"
                        + " time's %.1f%%", METHODS[i], measured[i], BOUND_POINTS, truth[i]));
            }
        }
        if (measuredSum < 90) {
            broken.add(String.format(Locale.ROOT, "the three methods are only %.1f%% of the samples", measuredSum));
        }
        if (quality.path("matched").asLong() < MINIMUM_MATCHED) {
            broken.add(quality.path("matched").asLong() + " matched samples, fewer than " + MINIMUM_MATCHED
                    + ": profile longer");
        }
    }

    /** main and the pool thread each with a quarter of the samples at least. */
    private static void checkThreads(JsonNode report, List<String> broken) {
        long allSamples = 0;
        long[] threadSamples = new long[THREADS.length];
        StringBuilder threads = new StringBuilder("CheckAttach: samples per thread:");
        for (JsonNode thread : report.path("threads")) {
            long samples = thread.path("samples").asLong();
            allSamples += samples;
            threads.append(' ').append(thread.path("thread").asText()).append(' ').append(samples).append(';');
            for (int i = 0; i < THREADS.length; i++) {
                if (thread.path("thread").asText().equals(THREADS[i])) threadSamples[i] += samples;
            }
        }
        System.out.println(threads);
        for (int i = 0; i < THREADS.length; i++) {
            if (threadSamples[i] * 4 < allSamples) {
                broken.add("thread " + THREADS[i] + " has " + threadSamples[i] + " of " + allSamples
                        + " samples, less than a quarter");
            }
        }
    }

    /** A, B and C of "cpu A B C woken". */
    private static long[] cpuLine(String line) {
        String[] fields = line.split(" ");
        if (fields.length != 5 || !fields[0].equals("cpu")) {
            throw new IllegalArgumentException("not a cpu line: '" + line + "'");
        }
        return new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2]), Long.parseLong(fields[3])};
    }
}
