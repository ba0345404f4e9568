package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.testapp.JvmtiError;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import org.junit.jupiter.api.Tag;

/**
 * Issue 13, acceptance 4 and 5: {@code stackreq profile --all-threads} of AllocationChurn (a small
 * G1 heap, so the GC worker threads are busy) samples every thread of the JVM, its own included.
 * With {@code --native} the GC workers' samples have events whose thread is written as JFR writes
 * the JVM's own threads (OS name and id, no Java name, Java id 0, not virtual) and whose stacks
 * are native frames only, through libjvm's G1 code; {@code report --threads} lists those threads
 * as JVM-internal beside the Java ones. Without {@code --native} the same threads' requests are
 * refused as before (UNATTACHED_THREAD) and have no event.
 */
@Tag("alone")
class ProfileAllThreadsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** HotSpot names G1's parallel workers so on JDK 17 and 25. */
    private static final String GC_WORKER = "GC Thread#";

    @OnEachJdk
    void gcWorkersHaveEventsWithTheirNativeStacksAndTheirOsThread(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.allocationChurnAllThreads(jdk, true);
        Map<Long, Long> tidOfUserData = acceptedSamples(run);
        List<RecordedEvent> events = JfrFile.requests(run.file("recording.jfr"));
        List<RecordedEvent> gc = events.stream().filter(e -> osName(e).startsWith(GC_WORKER)).toList();
        List<String> wrongThread = new ArrayList<>();
        List<String> notNative = new ArrayList<>();
        List<String> withoutLibjvm = new ArrayList<>();
        Map<String, Integer> g1Functions = new TreeMap<>();
        int withG1 = 0;
        for (RecordedEvent event : gc) {
            RecordedThread thread = event.getThread();
            Long tid = tidOfUserData.get(event.getLong("userData"));
            if (thread.getJavaName() != null || thread.getJavaThreadId() != 0
                    || (thread.hasField("virtual") && thread.getBoolean("virtual"))
                    || tid == null || thread.getOSThreadId() != tid || event.getBoolean("biased")) {
                wrongThread.add(JfrFile.describe(event) + " sample tid " + tid + " os name " + osName(event));
            }
            if (event.getBoolean("failed")) {
                continue;
            }
            List<RecordedFrame> frames = event.getStackTrace().getFrames();
            if (frames.stream().anyMatch(f -> !f.getType().equals("Native"))) {
                notNative.add(JfrFile.describe(event));
            }
            if (frames.stream().noneMatch(f -> f.getMethod().getType().getName().equals("libjvm.so"))) {
                withoutLibjvm.add(JfrFile.describe(event));
            }
            boolean g1 = false;
            for (RecordedFrame frame : frames) {
                String name = frame.getMethod().getName();
                if (frame.getMethod().getType().getName().equals("libjvm.so") && name.startsWith("G1")) {
                    g1Functions.merge(name.substring(0, name.indexOf('(') < 0 ? name.length() : name.indexOf('(')),
                            1, Integer::sum);
                    g1 = true;
                }
            }
            withG1 += g1 ? 1 : 0;
        }
        long walked = gc.stream().filter(e -> !e.getBoolean("failed")).count();
        int finalWithG1 = withG1;
        System.out.printf("%s profile --all-threads --native AllocationChurn: %d events, %d on GC workers (%d with a "
                + "stack, %d through libjvm's G1 code); G1 functions %s%n", jdk, events.size(), gc.size(), walked,
                withG1, top(g1Functions, 8));
        assertAll(
                () -> assertTrue(walked >= 20, () -> "only " + walked + " events with a stack on the GC workers"),
                () -> assertTrue(wrongThread.isEmpty(), () -> wrongThread.size() + " GC-worker events whose thread "
                        + "is not written as JFR writes the JVM's own threads, or not the sample's tid: "
                        + wrongThread.subList(0, Math.min(5, wrongThread.size()))),
                () -> assertTrue(notNative.isEmpty(), () -> notNative.size() + " GC-worker stacks with frames that are "
                        + "not Native: " + notNative.subList(0, Math.min(5, notNative.size()))),
                () -> assertTrue(withoutLibjvm.isEmpty(), () -> withoutLibjvm.size() + " GC-worker stacks without a "
                        + "libjvm.so frame: " + withoutLibjvm.subList(0, Math.min(5, withoutLibjvm.size()))),
                () -> assertTrue(finalWithG1 >= 0.5 * walked, () -> "only " + finalWithG1 + " of " + walked
                        + " GC-worker stacks pass through a libjvm G1 function"));
    }

    @OnEachJdk
    void reportThreadsListsTheJvmsOwnThreadsBesideTheJavaOnes(Jdk jdk) {
        Profiles.Profiled run = Profiles.allocationChurnAllThreads(jdk, true);
        JsonNode report = run.report("--threads");
        Map<String, JsonNode> threads = new HashMap<>();
        for (JsonNode thread : report.path("threads")) {
            threads.put(thread.path("thread").asText(), thread);
        }
        JsonNode main = threads.get("main");
        JsonNode worker = threads.values().stream().filter(t -> t.path("thread").asText().startsWith(GC_WORKER))
                .findFirst().orElse(null);
        System.out.printf("%s report --threads: %s%n", jdk, threads.keySet());
        assertAll(
                () -> assertTrue(main != null && main.path("kind").asText().equals("Java")
                        && main.path("samples").asLong() > 0 && main.path("osThreadIds").size() == 1,
                        () -> "main is not listed as a Java thread with samples and one OS id: " + main),
                () -> assertTrue(worker != null && worker.path("kind").asText().equals("JVM-internal")
                        && worker.path("samples").asLong() > 0 && worker.path("osThreadIds").size() == 1
                        && worker.path("totalPct").asDouble() > 0,
                        () -> "no GC worker listed as JVM-internal with samples, share and one OS id: " + threads));
    }

    /** The enriched recording (profile.jfr) writes the GC workers as the JVM's recording does. */
    @OnEachJdk
    void enrichedRecordingWritesTheJvmsOwnThreadsAsJfrDoes(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.allocationChurnAllThreads(jdk, true);
        List<RecordedEvent> samples = JfrFile.events(run.file("profile.jfr"), "stackreq.PerfSample");
        List<RecordedEvent> gc = samples.stream().filter(e -> osName(e).startsWith(GC_WORKER)).toList();
        List<RecordedEvent> named = gc.stream().filter(e -> e.getThread().getJavaName() != null
                || e.getThread().getJavaThreadId() != 0).toList();
        System.out.printf("%s profile.jfr: %d samples, %d on GC workers%n", jdk, samples.size(), gc.size());
        assertAll(
                () -> assertTrue(!gc.isEmpty(), "no sample of a GC worker in profile.jfr"),
                () -> assertTrue(named.isEmpty(), () -> named.size() + " GC-worker samples with a Java name or id, "
                        + "e.g. " + JfrFile.describe(named.get(0))));
    }

    @OnEachJdk
    void withoutNativeFramesTheJvmsOwnThreadsAreRefusedAsBefore(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.allocationChurnAllThreads(jdk, false);
        Map<Integer, Long> errors = new TreeMap<>();
        for (JsonNode sample : sampleLines(run)) {
            errors.merge(sample.path("error").asInt(), 1L, Long::sum);
        }
        List<RecordedEvent> events = JfrFile.requests(run.file("recording.jfr"));
        List<RecordedEvent> internal = events.stream().filter(e -> e.getThread().getJavaName() == null).toList();
        RecordedEvent statistics = JfrFile.lastStatistics(run.file("recording.jfr"));
        long unattached = errors.getOrDefault(JvmtiError.UNATTACHED_THREAD, 0L);
        System.out.printf("%s profile --all-threads AllocationChurn (native=off): sample errors %s, %d events%n", jdk,
                errors, events.size());
        assertAll(
                () -> assertTrue(unattached > 0, () -> "no sample of a thread JVMTI does not show was refused with "
                        + "UNATTACHED_THREAD: " + errors),
                // The JVM's last statistics come with the recording's end, before the perf agent stops.
                () -> assertTrue(statistics.getLong("rejectedOther") > 0
                        && statistics.getLong("rejectedOther") <= unattached, () -> "statistic rejectedOther "
                        + statistics.getLong("rejectedOther") + ", samples refused " + unattached),
                () -> assertEquals(0, statistics.getLong("internalThread"), "statistic internalThread"),
                () -> assertTrue(internal.isEmpty(), () -> internal.size() + " events of threads without a Java name, "
                        + "e.g. " + JfrFile.describe(internal.get(0))));
    }

    private static String osName(RecordedEvent event) {
        RecordedThread thread = event.getThread();
        return thread == null || thread.getOSName() == null ? "" : thread.getOSName();
    }

    private static List<JsonNode> sampleLines(Profiles.Profiled run) throws IOException {
        List<JsonNode> samples = new ArrayList<>();
        for (String line : Files.readAllLines(run.file("samples.jsonl"))) {
            JsonNode json = JSON.readTree(line);
            if (json.path("type").asText().equals("sample")) {
                samples.add(json);
            }
        }
        return samples;
    }

    /** userData -> tid of every sample whose request was accepted. */
    private static Map<Long, Long> acceptedSamples(Profiles.Profiled run) throws IOException {
        Map<Long, Long> tids = new HashMap<>();
        for (JsonNode sample : sampleLines(run)) {
            if (sample.path("error").asInt() == JvmtiError.NONE) {
                tids.put(sample.path("userData").asLong(), sample.path("tid").asLong());
            }
        }
        return tids;
    }

    private static String top(Map<String, Integer> counts, int n) {
        return counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(n)
                .map(e -> e.getKey() + "=" + e.getValue()).toList().toString();
    }
}
