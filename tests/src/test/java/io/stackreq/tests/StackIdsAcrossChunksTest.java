package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.stackreq.testapp.DistinctStacks;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JmcFile;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.IMCFrame;

/**
 * Stack ids across chunks (issue 28, item 3). A stack's id is its constant-pool key, and the
 * JDK's reader reuses the entry of the previous chunk when a key repeats (ChunkParser), so an id
 * that named another stack in an earlier chunk gives an event that stack. {@link DistinctStacks}
 * requests over 10,000 distinct stacks, each known from the request's userData, over many
 * chunks; every event of every reader must carry exactly the stack its request was made at:
 * RecordingFile on the whole file, RecordingFile on each chunk alone (no reuse possible: it tells
 * a wrong id from a wrong walk), and JMC core.
 */
class StackIdsAcrossChunksTest {
    private static final String APP = DistinctStacks.class.getName();
    private static final String REQUEST_METHOD = "io.stackreq.testapp.Requester.request";

    @TempDir
    Path dir;

    @OnEachJdk
    void fileRecordingGivesEveryEventItsOwnStack(Jdk jdk) throws Exception {
        Path file = dir.resolve("file.jfr");
        Path out = dir.resolve("file.txt");
        // stats=300ms: in file= mode the statistics period is the chunk period.
        JvmRun.on(jdk, dir).name("file").stackreqOptions("file=" + file + ",stats=300ms")
                .main(DistinctStacks.class, "out=" + out, "mode=file").timeout(Duration.ofSeconds(80)).run();
        Report report = Report.read(out);
        Checked checked = check(jdk, "file=", file, report, true);
        assertTrue(checked.chunksWithEvents >= 5, () -> "only " + checked.chunksWithEvents + " chunks hold events");
    }

    @OnEachJdk
    void continuousRecordingWithDumpsAndRotationGivesEveryEventItsOwnStack(Jdk jdk) throws Exception {
        Path out = dir.resolve("continuous.txt");
        // pending=1500: stackreq asks JFR for a new chunk (at most once a second) when that many
        // events wait; the app's dumps of the running recording finish chunks too. Over 5 s the
        // 14,000 requests fill a rotation's 1,500 in about half a second.
        JvmRun.on(jdk, dir).name("continuous").stackreqOptions("pending=1500")
                .main(DistinctStacks.class, "out=" + out, "mode=continuous", "dir=" + dir, "seconds=5")
                .timeout(Duration.ofSeconds(80)).run();
        Report report = Report.read(out);
        Checked checked = check(jdk, "continuous final", report.path("dump.final"), report, true);
        assertTrue(checked.chunksWithEvents >= 5, () -> "only " + checked.chunksWithEvents + " chunks hold events");
        for (int i = 0; report.has("dump.running" + i); i++) {
            check(jdk, "continuous running dump " + i, report.path("dump.running" + i), report, false);
        }
    }

    record Checked(int chunksWithEvents) {
    }

    /**
     * Checks every event of file with every reader; with complete, every accepted request has
     * exactly one event (else at most one).
     */
    private Checked check(Jdk jdk, String what, Path file, Report report, boolean complete) throws IOException {
        long[] accepted = report.getLongs("accepted");
        Set<Long> acceptedSet = new HashSet<>();
        for (long id : accepted) {
            acceptedSet.add(id);
        }
        // RecordingFile, the whole file.
        List<RecordedEvent> events = JfrFile.requests(file);
        if (complete) {
            Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(events), what);
        }
        Tally whole = new Tally(what + ", RecordingFile");
        for (RecordedEvent event : events) {
            whole.add(event.getLong("userData"), event.getBoolean("failed"),
                    event.getStackTrace() == null ? List.of() : jdkMethods(event.getStackTrace().getFrames()),
                    acceptedSet);
        }
        // RecordingFile, each chunk read alone.
        Tally alone = new Tally(what + ", RecordingFile chunk by chunk");
        int chunksWithEvents = 0;
        List<long[]> chunks = chunks(file);
        Path single = dir.resolve("single-chunk.jfr");
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            for (long[] chunk : chunks) {
                byte[] bytes = new byte[(int) chunk[1]];
                in.seek(chunk[0]);
                in.readFully(bytes);
                Files.write(single, bytes);
                List<RecordedEvent> inChunk = JfrFile.requests(single);
                if (!inChunk.isEmpty()) {
                    chunksWithEvents++;
                }
                for (RecordedEvent event : inChunk) {
                    alone.add(event.getLong("userData"), event.getBoolean("failed"),
                            event.getStackTrace() == null ? List.of()
                                    : jdkMethods(event.getStackTrace().getFrames()), acceptedSet);
                }
            }
        }
        // JMC core.
        Tally jmc = new Tally(what + ", JMC");
        for (JmcFile.Request request : JmcFile.requests(JmcFile.load(file))) {
            List<String> methods = new ArrayList<>();
            if (request.stackTrace() != null) {
                for (IMCFrame frame : request.stackTrace().getFrames()) {
                    methods.add(frame.getMethod().getType().getFullName() + "." + frame.getMethod().getMethodName());
                }
            }
            jmc.add(request.userData(), request.failed(), methods, acceptedSet);
        }
        int chunksHolding = chunksWithEvents;
        String summary = String.format("%s %s: %d chunks (%d with stackreq events), %d accepted requests (%s);"
                + " RecordingFile %s; chunk by chunk %s; JMC %s", jdk, what, chunks.size(), chunksHolding,
                accepted.length, rcs(report), whole, alone, jmc);
        System.out.println(summary);
        for (Tally tally : List.of(whole, alone, jmc)) {
            assertTrue(tally.wrong.isEmpty(), () -> tally.reader + ": " + tally.wrong.size()
                    + " events have another request's stack, e.g.\n  "
                    + String.join("\n  ", tally.wrong.subList(0, Math.min(5, tally.wrong.size()))) + "\n" + summary);
            assertTrue(tally.duplicates == 0 && tally.unknown == 0, () -> tally.reader + ": " + summary);
        }
        assertTrue(whole.right > 0.95 * whole.events, () -> "too many failed events: " + summary);
        assertTrue(!complete || whole.distinctPaths.size() >= 10_000, () -> "too few distinct stacks: " + summary);
        assertTrue(whole.events == alone.events && whole.events == jmc.events, () -> "readers disagree: " + summary);
        return new Checked(chunksWithEvents);
    }

    private static String rcs(Report report) {
        StringBuilder text = new StringBuilder();
        for (String key : report.keys()) {
            if (key.startsWith("rc.")) {
                text.append(text.length() == 0 ? "" : ", ").append("rc ").append(key.substring(3))
                        .append(' ').append(report.get(key));
            }
        }
        return text.toString();
    }

    private static List<String> jdkMethods(List<RecordedFrame> frames) {
        List<String> methods = new ArrayList<>(frames.size());
        for (RecordedFrame frame : frames) {
            methods.add(JfrFile.methodOf(frame));
        }
        return methods;
    }

    /** The frames request seq must have, top first, from Requester.request to DistinctStacks.request. */
    static List<String> expected(long seq) {
        int path = DistinctStacks.pathOf(seq);
        List<String> methods = new ArrayList<>();
        methods.add(REQUEST_METHOD);
        for (int level = DistinctStacks.LEVELS - 1; level >= 0; level--) {
            methods.add(APP + "." + DistinctStacks.methodAt(path, level));
        }
        methods.add(APP + ".request");
        return methods;
    }

    /** The path a stack's a/b frames spell, or -1. */
    static int pathIn(List<String> window) {
        int path = 0;
        for (int level = 0; level < DistinctStacks.LEVELS; level++) {
            String method = window.get(DistinctStacks.LEVELS - level);
            if (method.equals(APP + ".b")) {
                path |= 1 << level;
            } else if (!method.equals(APP + ".a")) {
                return -1;
            }
        }
        return path;
    }

    /** One reader's events: right, failed, wrong (with a description), and the distinct paths. */
    static final class Tally {
        final String reader;
        final List<String> wrong = new ArrayList<>();
        final Set<Integer> distinctPaths = new HashSet<>();
        final Map<Long, Integer> seen = new HashMap<>();
        int events;
        int right;
        int failed;
        int duplicates;
        int unknown;

        Tally(String reader) {
            this.reader = reader;
        }

        void add(long seq, boolean failedEvent, List<String> methods, Set<Long> accepted) {
            events++;
            if (seen.merge(seq, 1, Integer::sum) > 1) {
                duplicates++;
            }
            if (!accepted.contains(seq)) {
                unknown++;
            }
            if (failedEvent) {
                failed++;
                return;
            }
            List<String> want = expected(seq);
            int top = methods.indexOf(REQUEST_METHOD);
            List<String> window = top < 0 || top + want.size() > methods.size() ? null
                    : methods.subList(top, top + want.size());
            if (top >= 0 && top <= 1 && want.equals(window)) {
                right++;
                distinctPaths.add(DistinctStacks.pathOf(seq));
                return;
            }
            int path = window == null ? -1 : pathIn(window);
            wrong.add("userData " + seq + " (path " + Integer.toBinaryString(DistinctStacks.pathOf(seq)) + "): "
                    + (path < 0 ? "" : "the stack of path " + Integer.toBinaryString(path) + ", ")
                    + methods.size() + " frames " + methods.subList(0, Math.min(methods.size(), 4)) + "...");
        }

        @Override
        public String toString() {
            return String.format("%d events: %d right, %d failed, %d wrong, %d duplicate, %d unknown;"
                    + " %d distinct stacks right", events, right, failed, wrong.size(), duplicates, unknown,
                    distinctPaths.size());
        }
    }

    /** (offset, size) of each chunk of file. */
    static List<long[]> chunks(Path file) throws IOException {
        List<long[]> chunks = new ArrayList<>();
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long position = 0;
            while (position + 68 <= in.length()) {
                in.seek(position);
                long at = position;
                assertTrue(in.readInt() == 0x464c5200, () -> file + ": no chunk header at " + at);
                in.seek(position + 8);
                long size = in.readLong();
                assertTrue(size >= 68 && position + size <= in.length(), () -> file + ": chunk size " + size
                        + " at " + at);
                chunks.add(new long[] {position, size});
                position += size;
            }
        }
        return chunks;
    }
}
