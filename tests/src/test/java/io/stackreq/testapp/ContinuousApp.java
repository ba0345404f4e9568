package io.stackreq.testapp;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jdk.jfr.Recording;
import jdk.management.jfr.FlightRecorderMXBean;

/**
 * A JVM whose JFR recording is read while it runs, as production recordings are: busy threads
 * with CPU timers request stack traces (librequester.so) while the scenario dumps, rotates,
 * changes settings or kills the JVM.
 *
 * <p>Arguments ({@code key=value}): {@code out} report file, {@code dir} directory for the files
 * the scenario writes, {@code scenario} one of {@code dumps}, {@code retention}, {@code settings},
 * {@code memory}, {@code kill}; {@code seconds} for {@code retention} (60) and {@code maxAge}
 * (20); {@code jfc} the build's stackreq.jfc, with which {@code settings} enables the event through
 * jcmd on JDK 11 (no {@code +event#setting} there). Each dump is reported as {@code dump.NAME} (its file) and {@code dump.NAME.begin} (epoch
 * nanoseconds just before it was asked for); {@code timeline} lists {@code epochNanos:issued}
 * pairs taken every 200 ms (ids up to {@code issued} had been requested at that instant).
 */
public final class ContinuousApp {
    private static final int THREADS = 2;
    private static final int INTERVAL_US = 1000;
    private static Path eventSettings;

    private ContinuousApp() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        Report report = Report.afterEnable(Requester.enable());
        Path dir = a.path("dir");
        eventSettings = a.has("jfc") ? a.path("jfc") : null;
        switch (a.get("scenario")) {
            case "dumps": dumps(dir, report); break;
            case "retention": retention(dir, report, a.getInt("seconds", 60), a.getInt("maxAge", 20)); break;
            case "settings": settings(dir, report); break;
            case "memory": memory(dir, report); break;
            case "kill": kill(dir, report, a.path("out")); break;
            default: throw new IllegalArgumentException("unknown scenario " + a.get("scenario"));
        }
        report.write(a.path("out"));
    }

    /** Every way a running recording is read, then a stopped recording dumped. */
    private static void dumps(Path dir, Report report) throws Exception {
        Recording recording = new Recording();
        recording.setName("cont");
        recording.enable("jdk.StackTraceRequest");
        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(20));
        recording.start();
        try (Busy busy = new Busy()) {
            sleep(2500);
            dump(report, dir, "jcmdNamed", file -> jcmd("JFR.dump", "name=cont", "filename=" + file));
            sleep(1000);
            dump(report, dir, "jcmdAll", file -> jcmd("JFR.dump", "filename=" + file));
            sleep(500);
            Instant from = Instant.now().minusSeconds(2);
            dump(report, dir, "jcmdRange", file -> jcmd("JFR.dump", "name=cont", "begin=" + from,
                    "end=" + Instant.now(), "filename=" + file));
            sleep(500);
            dump(report, dir, "recordingDump", recording::dump);
            dump(report, dir, "copyDump", file -> {
                try (Recording copy = recording.copy(false)) {
                    copy.dump(file);
                }
            });
            // What JMC's "Dump whole recording" does through JMX.
            dump(report, dir, "mxBeanStream", file -> {
                FlightRecorderMXBean bean = ManagementFactory.getPlatformMXBean(FlightRecorderMXBean.class);
                long clone = bean.cloneRecording(recording.getId(), true);
                long stream = bean.openStream(clone, Map.of());
                try (OutputStream to = Files.newOutputStream(file)) {
                    for (byte[] block; (block = bean.readStream(stream)) != null; ) {
                        to.write(block);
                    }
                }
                bean.closeStream(stream);
                bean.closeRecording(clone);
            });
            sleep(500);
        }
        Requester.putTimerResults(report);
        recording.stop();
        dump(report, dir, "stoppedDump", recording::dump);
        recording.close();
    }

    /** A recording with maxage, its chunks rotated by stackreq's pending limit, dumped at the end. */
    private static void retention(Path dir, Report report, int seconds, int maxAgeSeconds) throws Exception {
        Recording recording = new Recording();
        recording.setName("cont");
        recording.setMaxAge(Duration.ofSeconds(maxAgeSeconds));
        recording.enable("jdk.StackTraceRequest");
        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(20));
        recording.start();
        try (Busy busy = new Busy(); Timeline timeline = new Timeline(report)) {
            sleep(seconds * 1000L);
            dump(report, dir, "retained", file -> jcmd("JFR.dump", "name=cont", "filename=" + file));
        }
        Requester.putTimerResults(report);
        recording.close();
    }

    /**
     * Settings changed on running recordings. Each phase changes one thing, then requests from
     * this thread (RequestStackTrace(env, NULL, NULL, id)) until the result is what the change
     * should give: {@code phase.NAME.delayMicros} is how long that took, {@code phase.NAME.ids}
     * the ids that returned NONE, {@code phase.NAME.rc} the code looked for.
     */
    private static void settings(Path dir, Report report) throws Exception {
        long[] nextId = {1_000_000};
        Recording recording = new Recording();
        recording.setName("cont");
        recording.start();
        phase(report, "initiallyOff", JvmtiError.NOT_AVAILABLE, nextId, () -> { });
        phase(report, "enabled", JvmtiError.NONE, nextId, () -> recording.enable("jdk.StackTraceRequest"));
        phase(report, "disabled", JvmtiError.NOT_AVAILABLE, nextId, () -> recording.disable("jdk.StackTraceRequest"));
        Recording second = new Recording();
        second.enable("jdk.StackTraceRequest");
        phase(report, "secondStarted", JvmtiError.NONE, nextId, second::start);
        phase(report, "secondStopped", JvmtiError.NOT_AVAILABLE, nextId, second::close);
        phase(report, "jcmdStarted", JvmtiError.NONE, nextId,
                () -> jcmd(startWithTheEventOnly("third")));
        phase(report, "jcmdStopped", JvmtiError.NOT_AVAILABLE, nextId, () -> jcmd("JFR.stop", "name=third"));
        // Throttle: from off to 5 per second and back, on one recording.
        phase(report, "enabledAgain", JvmtiError.NONE, nextId, () -> recording.enable("jdk.StackTraceRequest"));
        report.put("throttled.first", nextId[0]);
        recording.enable("jdk.StackTraceRequest").with("throttle", "5/s");
        sleep(100);
        for (int i = 0; i < 200; i++) {
            Requester.request(null, nextId[0]++);
        }
        report.put("throttled.last", nextId[0] - 1);
        recording.enable("jdk.StackTraceRequest").with("throttle", "off");
        sleep(100);
        report.put("unthrottled.first", nextId[0]);
        for (int i = 0; i < 200; i++) {
            Requester.request(null, nextId[0]++);
        }
        report.put("unthrottled.last", nextId[0] - 1);
        recording.stop();
        dump(report, dir, "final", recording::dump);
        recording.close();
    }

    /** An in-memory recording dumped while it runs, then stopped to its destination. */
    private static void memory(Path dir, Report report) throws Exception {
        Recording recording = new Recording();
        recording.setToDisk(false);
        recording.enable("jdk.StackTraceRequest");
        Path destination = dir.resolve("stopped.jfr");
        recording.setDestination(destination);
        recording.start();
        try (Busy busy = new Busy()) {
            sleep(2500);
            dump(report, dir, "running", recording::dump);
            sleep(1500);
        }
        Requester.putTimerResults(report);
        report.put("dump.stopped.begin", epochNanos());
        recording.stop();
        report.put("dump.stopped", destination);
        recording.close();
    }

    /**
     * A disk recording, dumped twice (each dump finishes a chunk), whose JVM is then killed with
     * SIGKILL; the report is written before that.
     */
    private static void kill(Path dir, Report report, Path out) throws Exception {
        Busy busy = new Busy();
        Timeline timeline = new Timeline(report);
        // Dumps finish chunks, as rotation does, however few requests a loaded machine makes.
        sleep(2000);
        dump(report, dir, "first", file -> jcmd("JFR.dump", "filename=" + file));
        sleep(2000);
        dump(report, dir, "second", file -> jcmd("JFR.dump", "filename=" + file));
        sleep(1000);
        timeline.close();
        report.write(out);
        new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start();
        sleep(60_000);
        busy.close();
        throw new IllegalStateException("still alive a minute after kill -9");
    }

    interface Action {
        void run() throws Exception;
    }

    interface FileAction {
        void run(Path file) throws Exception;
    }

    private static void dump(Report report, Path dir, String name, FileAction action) throws Exception {
        Path file = dir.resolve(name + ".jfr");
        report.put("dump." + name + ".begin", epochNanos());
        action.run(file);
        report.put("dump." + name, file);
    }

    private static void phase(Report report, String name, int expected, long[] nextId, Action change)
            throws Exception {
        change.run();
        long start = System.nanoTime();
        List<Long> accepted = new ArrayList<>();
        int rc;
        do {
            long id = nextId[0]++;
            rc = Requester.request(null, id);
            if (rc == JvmtiError.NONE) {
                accepted.add(id);
            }
            if (rc != expected) {
                sleep(1);
            }
        } while (rc != expected && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10));
        report.put("phase." + name + ".rc", rc);
        report.put("phase." + name + ".delayMicros", (System.nanoTime() - start) / 1000);
        report.put("phase." + name + ".ids", accepted.stream().map(String::valueOf)
                .reduce((x, y) -> x + " " + y).orElse(""));
    }

    /**
     * {@code JFR.start} of a recording that enables jdk.StackTraceRequest and nothing else. JDK 11
     * has neither {@code +event#setting} nor settings named none: there stackreq.jfc does it.
     */
    private static String[] startWithTheEventOnly(String name) {
        return Runtime.version().feature() >= 17
                ? new String[] {"JFR.start", "name=" + name, "settings=none", "+jdk.StackTraceRequest#enabled=true"}
                : new String[] {"JFR.start", "name=" + name, "settings=" + eventSettings};
    }

    private static void jcmd(String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>();
        line.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        line.add(Long.toString(ProcessHandle.current().pid()));
        line.addAll(List.of(command));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0
                || output.contains("Exception") || output.contains("failed") || output.contains("Could not")) {
            throw new IllegalStateException(String.join(" ", line) + " failed:\n" + output);
        }
    }

    static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static void sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    /** Busy threads with a CPU-time timer each, until closed. */
    static final class Busy implements AutoCloseable {
        private volatile boolean stop;
        private final List<Thread> threads = new ArrayList<>();
        private final List<Throwable> failures = new ArrayList<>();

        Busy() {
            for (int i = 0; i < THREADS; i++) {
                Thread thread = new Thread(this::spin, "busy-" + i);
                threads.add(thread);
                thread.start();
            }
        }

        private void spin() {
            try {
                Requester.startTimerOrThrow(INTERVAL_US);
                while (!stop) {
                    BusyThreads.sink += BusyThreads.burn(System.nanoTime() + 10_000_000);
                }
                Requester.stopTimerOrThrow();
            } catch (Throwable t) {
                synchronized (failures) {
                    failures.add(t);
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            for (Thread thread : threads) {
                thread.join();
            }
            if (!failures.isEmpty()) {
                throw new IllegalStateException("busy thread failed", failures.get(0));
            }
        }
    }

    /** Records how many ids had been requested, every 200 ms, into the report when closed. */
    static final class Timeline implements AutoCloseable {
        private final Report report;
        private final StringBuilder points = new StringBuilder();
        private final Thread thread;
        private volatile boolean stop;

        Timeline(Report report) {
            this.report = report;
            this.thread = new Thread(this::run, "timeline");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            while (!stop) {
                synchronized (points) {
                    points.append(epochNanos()).append(':').append(Requester.issued()).append(' ');
                }
                try {
                    sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join();
            synchronized (points) {
                report.put("timeline", points.toString().trim());
            }
        }
    }
}
