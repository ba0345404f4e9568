import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * tests/aarch64.sh continuous's check, run with the host's JDK (java CheckContinuous.java FINAL.jfr
 * SAMPLES.jsonl DUMP.jfr DUMP_BEGIN FROZEN_REPOSITORY FROZEN_AT; the times in epoch nanoseconds):
 * a continuous disk recording of MainThreadTarget with both agents, its chunks rotated by
 * stackreq's pending limit, read three ways. The file JFR wrote at exit has exact accounting, as
 * CheckRecording's: every accepted request is one event, each answering one sample that returned
 * NONE. A dump taken with jcmd while it ran, and a copy of the repository taken while the JVM was
 * stopped with SIGSTOP (what SIGKILL would have left at that instant: every thread stopped, the
 * files as they were), each hold every sample that returned NONE at least a second before the dump
 * began or the JVM was stopped, and no event twice, as ContinuousRecordingTest asks of dumps and of
 * a killed JVM's repository on x86_64. A sample's time is the perf agent's (CLOCK_MONOTONIC at the
 * signal, which qemu-user takes from the host), not stackreq's. Exits 1 with one line per broken
 * rule; prints the counts either way.
 */
public final class CheckContinuous {
    private static final long SECOND = 1_000_000_000L;
    /** Fewer required ids than this would let the rule pass on a dump taken too early. */
    private static final int MINIMUM_REQUIRED = 100;
    private static final int MINIMUM_TARGET_STACKS = 200;
    private static final String TARGET = "io.stackreq.testapp.MainThreadTarget";
    private static final Pattern SAMPLE = Pattern.compile(
            "\"type\":\"sample\",\"userData\":(-?\\d+),\"tid\":-?\\d+,\"time\":(\\d+).*\"error\":(-?\\d+)");

    private final List<String> broken = new ArrayList<>();
    /** userData -> epoch nanoseconds of the signal, for the samples that returned NONE. */
    private final Map<Long, Long> acceptedAt = new HashMap<>();
    private final Map<Integer, Integer> resultCounts = new HashMap<>();

    public static void main(String[] args) throws IOException {
        CheckContinuous check = new CheckContinuous();
        check.readSamples(Path.of(args[1]));
        Set<Long> finalIds = check.checkFinal(Path.of(args[0]));
        check.checkHeld("dump " + Path.of(args[2]).getFileName(), List.of(Path.of(args[2])), Long.parseLong(args[3]),
                finalIds);
        List<Path> frozen;
        try (Stream<Path> files = Files.walk(Path.of(args[4]))) {
            frozen = files.filter(file -> file.toString().endsWith(".jfr")).sorted().toList();
        }
        List<Path> chunkFiles =
                frozen.stream().filter(file -> !file.getFileName().toString().contains("_stackreq_")).toList();
        // The chunk JFR was writing is JFR's alone (stackreq appends to a chunk once JFR finished
        // it; its events since then are in the side files), and a reader of a file waits for its
        // chunk to finish ("Recording file is stuck in locked stream state"): it is not read, as
        // ContinuousRecordingTest does not ask jfr summary to read it. Every other file must read.
        Path unfinished = chunkFiles.isEmpty() ? null : chunkFiles.get(chunkFiles.size() - 1);
        System.out.printf("frozen repository: %d files, %d of them JFR's chunks (%s being written), the rest"
                + " stackreq's side files%n", frozen.size(), chunkFiles.size(),
                unfinished == null ? "none" : unfinished.getFileName());
        // The script froze the JVM after JFR's second chunk file appeared: one rotation at least.
        if (chunkFiles.size() < 2) {
            check.broken.add("the frozen repository holds " + chunkFiles.size() + " chunk files: no rotation");
        }
        List<Path> finished = frozen.stream().filter(file -> !file.equals(unfinished)).toList();
        Map<Long, Path> required = check.checkHeld("frozen repository", finished, Long.parseLong(args[5]), finalIds);
        // The dump finished a chunk 2 s before the freeze: what came after is in side files only.
        System.out.printf("frozen repository: %d of the samples required there are in stackreq's side files%n",
                required.values().stream().filter(file -> !chunkFiles.contains(file)).count());
        for (String rule : check.broken) System.out.println("BROKEN: " + rule);
        System.exit(check.broken.isEmpty() ? 0 : 1);
    }

    private void readSamples(Path samples) throws IOException {
        // The samples' clock is CLOCK_MONOTONIC, which System.nanoTime reads on Linux.
        Instant now = Instant.now();
        long monotonicToEpoch = now.getEpochSecond() * SECOND + now.getNano() - System.nanoTime();
        for (String line : Files.readAllLines(samples)) {
            Matcher sample = SAMPLE.matcher(line);
            if (!sample.find()) continue;
            int result = Integer.parseInt(sample.group(3));
            resultCounts.merge(result, 1, Integer::sum);
            if (result == 0) {
                acceptedAt.put(Long.parseLong(sample.group(1)), Long.parseLong(sample.group(2)) + monotonicToEpoch);
            }
        }
    }

    /** The file written at exit: the accounting and the stacks; returns its events' userData. */
    private Set<Long> checkFinal(Path recording) throws IOException {
        List<RecordedEvent> events = new ArrayList<>();
        RecordedEvent statistics = null;
        for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
            String type = event.getEventType().getName();
            if (type.equals("jdk.StackTraceRequest")) {
                events.add(event);
            } else if (type.equals("stackreq.RequestStatistics")
                    && (statistics == null || event.getStartTime().isAfter(statistics.getStartTime()))) {
                statistics = event;
            }
        }
        if (statistics == null) {
            broken.add("no stackreq.RequestStatistics event at exit");
        } else {
            long accepted = statistics.getLong("accepted"), emitted = statistics.getLong("emitted");
            long dropped = statistics.getLong("dropped"), throttled = statistics.getLong("throttled");
            long returnedNone = resultCounts.getOrDefault(0, 0);
            long returnedOutOfMemory = resultCounts.getOrDefault(110, 0);
            if (accepted != emitted + dropped) {
                broken.add("accepted " + accepted + " != emitted + dropped " + (emitted + dropped));
            }
            if (statistics.getLong("pending") != 0) broken.add("pending " + statistics.getLong("pending") + " at exit");
            if (emitted != events.size()) {
                broken.add("emitted " + emitted + " != " + events.size() + " events in the file at exit");
            }
            if (dropped != returnedOutOfMemory) {
                broken.add("dropped " + dropped + " != " + returnedOutOfMemory
                        + " samples that returned OUT_OF_MEMORY");
            }
            if (accepted + throttled != returnedNone + returnedOutOfMemory) {
                broken.add("accepted + throttled " + (accepted + throttled) + " != "
                        + (returnedNone + returnedOutOfMemory) + " samples that returned NONE or OUT_OF_MEMORY");
            }
            System.out.printf("at exit: accepted=%d emitted=%d dropped=%d throttled=%d failed=%d pending=%d; samples by"
                    + " result %s%n", accepted, emitted, dropped, throttled, statistics.getLong("failed"),
                    statistics.getLong("pending"), resultCounts);
        }
        Set<Long> ids = idsOnce("the file at exit", events);
        long unanswered = ids.stream().filter(id -> !acceptedAt.containsKey(id)).count();
        if (unanswered > 0) broken.add(unanswered + " events at exit whose userData is no sample that returned NONE");
        int failed = 0, noFrames = 0, target = 0;
        List<Long> timeOffsets = new ArrayList<>();
        for (RecordedEvent event : events) {
            Long sampled = acceptedAt.get(event.getLong("userData"));
            Instant start = event.getStartTime();
            if (sampled != null) timeOffsets.add(start.getEpochSecond() * SECOND + start.getNano() - sampled);
            if (event.getBoolean("failed")) {
                failed++;
            } else if (event.getStackTrace() == null || event.getStackTrace().getFrames().isEmpty()) {
                noFrames++;
            } else if (event.getStackTrace().getFrames().stream().anyMatch(CheckContinuous::isTarget)) {
                target++;
            }
        }
        timeOffsets.sort(null);
        System.out.printf("at exit: %d events, %d failed (no stack), %d stacks with %s's frames; each event's start"
                + " minus its sample's time: median %.1f ms%n", events.size(), failed, target, TARGET,
                timeOffsets.isEmpty() ? 0 : timeOffsets.get(timeOffsets.size() / 2) / 1e6);
        if (noFrames > 0) broken.add(noFrames + " events at exit that did not fail have no frames");
        if (target < MINIMUM_TARGET_STACKS) {
            broken.add("only " + target + " stacks at exit with a frame of " + TARGET + ", fewer than "
                    + MINIMUM_TARGET_STACKS);
        }
        return ids;
    }

    private static boolean isTarget(RecordedFrame frame) {
        return frame.getMethod().getType().getName().equals(TARGET);
    }

    /**
     * What a reader of FILES sees of a recording read at epoch nanoseconds AT: every sample that
     * returned NONE a second or more before it, once, and nothing the file at exit lacks. Returns
     * those of the samples it holds, each with the file that holds it.
     */
    private Map<Long, Path> checkHeld(String name, List<Path> files, long at, Set<Long> finalIds) {
        List<RecordedEvent> events = new ArrayList<>();
        Map<Long, Path> fileOf = new HashMap<>();
        for (Path file : files) {
            try {
                for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
                    if (!event.getEventType().getName().equals("jdk.StackTraceRequest")) continue;
                    events.add(event);
                    fileOf.put(event.getLong("userData"), file);
                }
            } catch (IOException | RuntimeException e) {
                broken.add(name + ": " + file.getFileName() + " does not read: " + e);
            }
        }
        Set<Long> ids = idsOnce(name, events);
        long unknown = ids.stream().filter(id -> !finalIds.contains(id)).count();
        if (unknown > 0) broken.add(name + ": " + unknown + " events the file at exit does not have");
        long noFrames = events.stream().filter(event -> !event.getBoolean("failed")
                && (event.getStackTrace() == null || event.getStackTrace().getFrames().isEmpty())).count();
        if (noFrames > 0) broken.add(name + ": " + noFrames + " events that did not fail have no frames");
        List<Long> required = acceptedAt.entrySet().stream().filter(sample -> sample.getValue() <= at - SECOND)
                .map(Map.Entry::getKey).sorted().toList();
        List<Long> missing = required.stream().filter(id -> !ids.contains(id)).toList();
        System.out.printf("%s: %d events; %d samples returned NONE a second or more before it was read, %d of them"
                + " missing%n", name, events.size(), required.size(), missing.size());
        if (required.size() < MINIMUM_REQUIRED) {
            broken.add(name + ": only " + required.size() + " samples returned NONE a second before it was read,"
                    + " fewer than " + MINIMUM_REQUIRED);
        }
        if (!missing.isEmpty()) {
            broken.add(name + ": " + missing.size() + " requests accepted a second or more before it was read have no"
                    + " event, e.g. userData " + missing.subList(0, Math.min(10, missing.size())));
        }
        Map<Long, Path> held = new HashMap<>();
        for (long id : required) {
            if (fileOf.containsKey(id)) held.put(id, fileOf.get(id));
        }
        return held;
    }

    /** The userData of events, each of which must be there once. */
    private Set<Long> idsOnce(String name, List<RecordedEvent> events) {
        Set<Long> ids = new HashSet<>();
        long twice = events.stream().filter(event -> !ids.add(event.getLong("userData"))).count();
        if (twice > 0) broken.add(name + ": " + twice + " events repeat the userData of another");
        return ids;
    }
}
