package io.stackreq.testapp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jdk.jfr.Recording;

/**
 * Thousands of distinct stacks, each of them known to the workload: request {@code seq} is made
 * at the bottom of a recursion {@link #LEVELS} deep whose method at level {@code k} is {@link #a}
 * or {@link #b} as bit {@code k} of {@link #pathOf}{@code (seq)} says, with
 * {@code RequestStackTrace(env, NULL, NULL, seq)} (librequester.so). The path is the workload's
 * shadow stack: the checker derives every event's expected frames from its userData alone. Most
 * requests take a path never taken before; every fifth takes the path of an earlier request
 * again, so that stacks also repeat across chunks.
 *
 * <p>Arguments ({@code key=value}): {@code out} report file, {@code requests} how many (14000),
 * {@code seconds} over how long (5); {@code mode=file} (stackreq's file= recording, nothing
 * else) or {@code mode=continuous} with {@code dir}: a recording in JFR's repository, dumped
 * with {@code jcmd JFR.dump} and {@code Recording.dump} while it runs (each finishes a chunk),
 * stopped and dumped to {@code dir/final.jfr} at the end. Reports {@code accepted} (the seqs
 * that returned NONE), {@code rc.N} counts and the dumps' files as {@code dump.NAME}.
 */
public final class DistinctStacks {
    public static final int LEVELS = 14;
    private static final int PATHS = 1 << LEVELS;

    private DistinctStacks() {
    }

    /** The path of request seq: distinct for the first 2^LEVELS non-repeating seqs. */
    public static int pathOf(long seq) {
        long base = seq % 5 == 4 ? seq / 3 : seq;
        // An odd multiplier is a bijection modulo 2^LEVELS: neighbouring seqs differ near the top too.
        return (int) ((base * 7919L + 12345L) & (PATHS - 1));
    }

    /** The method at level k (0 = the outermost) of path: "a" or "b". */
    public static String methodAt(int path, int level) {
        return ((path >>> level) & 1) == 0 ? "a" : "b";
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        int requests = a.getInt("requests", 14000);
        double seconds = a.getDouble("seconds", 5);
        Report report = Report.afterEnable(Requester.enable());
        List<Long> accepted = new ArrayList<>();
        long[] rcCounts = new long[256];
        String mode = a.get("mode", "file");
        Recording recording = null;
        if (mode.equals("continuous")) {
            recording = new Recording();
            recording.setName("cont");
            recording.enable("jdk.StackTraceRequest");
            recording.start();
        }
        Path dir = mode.equals("continuous") ? a.path("dir") : null;
        long start = System.nanoTime();
        long periodNanos = (long) (seconds * 1e9 / requests);
        int dumps = 0;
        for (long seq = 1; seq <= requests; seq++) {
            int rc = request(pathOf(seq), seq);
            rcCounts[rc & 0xff]++;
            if (rc == JvmtiError.NONE) {
                accepted.add(seq);
            }
            if (seq % 64 == 0) {
                long due = start + seq * periodNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
            }
            // A dump of a running recording finishes its chunk: jcmd and Recording.dump by turns.
            if (recording != null && seq % (requests / 6) == 0 && dumps < 5) {
                Path file = dir.resolve("running-" + dumps + ".jfr");
                if (dumps % 2 == 0) {
                    jcmd("JFR.dump", "name=cont", "filename=" + file);
                } else {
                    recording.dump(file);
                }
                report.put("dump.running" + dumps, file);
                dumps++;
            }
        }
        report.put("elapsedMillis", (System.nanoTime() - start) / 1_000_000);
        report.put("accepted", accepted.stream().map(String::valueOf).reduce((x, y) -> x + " " + y).orElse(""));
        for (int rc = 0; rc < rcCounts.length; rc++) {
            if (rcCounts[rc] != 0) {
                report.put("rc." + rc, rcCounts[rc]);
            }
        }
        if (recording != null) {
            recording.stop();
            Path file = dir.resolve("final.jfr");
            recording.dump(file);
            report.put("dump.final", file);
            recording.close();
        }
        report.write(a.path("out"));
    }

    private static int request(int path, long seq) {
        return (path & 1) == 0 ? a(path, 0, seq) : b(path, 0, seq);
    }

    static int a(int path, int level, long seq) {
        int next = level + 1;
        if (next == LEVELS) {
            return Requester.request(null, seq);
        }
        return ((path >>> next) & 1) == 0 ? a(path, next, seq) : b(path, next, seq);
    }

    static int b(int path, int level, long seq) {
        int next = level + 1;
        if (next == LEVELS) {
            return Requester.request(null, seq);
        }
        return ((path >>> next) & 1) == 0 ? a(path, next, seq) : b(path, next, seq);
    }

    private static void jcmd(String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>();
        line.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        line.add(Long.toString(ProcessHandle.current().pid()));
        line.addAll(List.of(command));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0 || output.contains("Exception")) {
            throw new IllegalStateException(String.join(" ", line) + " failed:\n" + output);
        }
    }
}
