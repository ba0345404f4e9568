package io.stackreq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.stackreq.reliability.app.ChurnApp;
import io.stackreq.reliability.app.DeoptVictim;
import io.stackreq.reliability.support.ChaosResults;
import io.stackreq.reliability.support.Ledger;
import io.stackreq.reliability.support.Reliability;
import io.stackreq.reliability.support.RequestScan;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedMethod;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 6.2: 10 kHz of signal-driven requests (10 pacer threads x 1 kHz, libchaos.so) for 60 s
 * per JDK in CI (2 minutes over JDK 17 and 25), 30 minutes per JDK with
 * {@code -Dstackreq.long=true}, while thousands of short-lived threads start and end, fresh
 * copies of {@code DeoptVictim} are loaded through throw-away loaders (deoptimized, recompiled,
 * unloaded) and the heap is under GC pressure ({@link ChurnApp}).
 *
 * <p>Must hold: no crash; no deadlock (the JVM must exit within a generous bound, else its Java
 * and native threads are dumped and the test fails); every request returns NONE, OUT_OF_MEMORY,
 * THREAD_NOT_ALIVE (a signal that reached a thread already past its JVMTI ThreadEnd) or
 * UNATTACHED_THREAD (one before its ThreadStart); every NONE has exactly one event carrying the requesting thread,
 * short-lived threads that ended long before the recording was written included; the last statistics event
 * says accepted = emitted + dropped exactly. In CI the events go to the JVM's recording; the long
 * run uses {@code file=} with a chunk a second (bounded memory for 18 million events), the JVM's
 * recording then holds the JVM's own events only.
 */
class StressChurnTest {
    private static final String DEOPTIMIZATION = "jdk.Deoptimization";
    /**
     * SIGRTMIN + 6: real-time signals queue, so every pacer tick becomes a request even when the
     * target has not run since the last one (SIGPROF would merge them: ~60% of 10 kHz here).
     */
    private static final int REALTIME_SIGNAL = 40;

    @TempDir
    Path dir;

    @OnEachJdk
    void tenKilohertzOfRequestsThroughThreadClassAndCodeChurn(Jdk jdk) throws Exception {
        int seconds = Reliability.stressSeconds();
        boolean fileMode = Reliability.longRun();
        Path recording = dir.resolve("stress.jfr");
        Path requests = fileMode ? dir.resolve("requests.jfr") : recording;
        Path reportFile = dir.resolve("stress.txt");
        Path results = dir.resolve("stress-results");
        Path threads = dir.resolve("threads.txt");
        int capacity = seconds * 10_000 + 1_000_000;
        boolean deoptimizationEvent = jdk.feature() >= 14;
        Path compilationLog = dir.resolve("compilation.log");
        String jfr = "-XX:StartFlightRecording=filename=" + recording
                + (deoptimizationEvent ? ",+jdk.Deoptimization#enabled=true" : "")
                + (fileMode ? "" : "," + JvmRun.enableEvent(jdk));
        List<String> flags = new ArrayList<>(List.of("-agentpath:" + Reliability.chaosLibrary().toAbsolutePath()
                + "=ids=" + capacity + ",signal=" + REALTIME_SIGNAL, "-Xmx128m", jfr));
        if (!deoptimizationEvent) {
            flags.addAll(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:+LogCompilation",
                    "-XX:LogFile=" + compilationLog));
        }
        JvmRun.Result run = JvmRun.on(jdk, dir).name("stress").withoutRequester()
                .stackreqOptions("ring=16384" + (fileMode ? ",file=" + requests : ""))
                .flags(flags.toArray(String[]::new))
                .main(ChurnApp.class, "out=" + reportFile, "results=" + results, "threads=" + threads,
                        "seconds=" + seconds)
                .timeout(Duration.ofSeconds(2L * seconds + 180)).start();
        if (run.crashed() || run.exitCode() != 0) {
            fail("stress " + (run.crashed() ? "crashed the JVM" : "ended with exit code " + run.exitCode()) + "\n"
                    + run);
        }
        Report report = Report.read(reportFile);
        assertEquals(JvmtiError.NONE, report.getInt("enable.rc"), () -> "enable\n" + report);
        ChaosResults chaos = ChaosResults.read(results);
        Map<Integer, Set<String>> namesByTid = threadNames(threads);

        List<String> problems = new ArrayList<>();
        for (Map.Entry<Integer, Long> code : chaos.rcHistogram().entrySet()) {
            int rc = code.getKey();
            if (rc != JvmtiError.NONE && rc != JvmtiError.OUT_OF_MEMORY && rc != JvmtiError.THREAD_NOT_ALIVE
                    && rc != JvmtiError.UNATTACHED_THREAD) {
                problems.add(code.getValue() + " requests returned " + rc
                        + (rc == -1 ? " (never returned: a handler still running after stopPacers)" : ""));
            }
        }
        RequestScan scan = RequestScan.scan(requests, chaos.count() + 1, DEOPTIMIZATION);
        problems.addAll(Ledger.eachAcceptedIdExactlyOnce(chaos, scan));
        problems.addAll(Ledger.eventThreadIsTheRequester(chaos, scan));
        problems.addAll(Ledger.statisticsExact(chaos, scan, true));

        // Events of short-lived threads (all ended before the recording was written) carry the
        // Java thread that had that tid when it requested.
        long churnEvents = 0;
        long wrongName = 0;
        List<String> examples = new ArrayList<>();
        for (long id = 1; id <= chaos.count(); id++) {
            if (chaos.rc(id) != JvmtiError.NONE || scan.events(id) != 1) {
                continue;
            }
            Set<String> names = namesByTid.get(chaos.tid(id));
            if (names == null) {
                continue;
            }
            String name = scan.threadName(id);
            if (name != null && name.startsWith("churn-")) {
                churnEvents++;
            }
            if (!names.contains(name)) {
                wrongName++;
                if (examples.size() < 10) {
                    examples.add("id " + id + " tid " + chaos.tid(id) + ": event thread '" + name
                            + "', threads with that tid "
                            + names);
                }
            }
        }
        if (wrongName > 0) {
            problems.add(wrongName + " events name another Java thread than the one that had the tid, e.g. "
                    + examples);
        }

        long deoptimizations = !deoptimizationEvent ? uncommonTrapsOfVictims(compilationLog)
                : deoptimizationsOfVictims(fileMode ? RequestScan.scan(recording, 1, DEOPTIMIZATION) : scan);
        String summary = String.format("[stress %s] %d s: %,d requests (%,.0f/s), %,d signals, %,d short-lived threads "
                + "(%,d events of them), %,d DeoptVictim copies run, %,d of their deoptimizations recorded, "
                + "%,d GCs, %,d classes unloaded; rc %s; %,d events (%,d failed)", jdk, seconds,
                report.getLong("issued"), report.getLong("issued") / (report.getLong("elapsedNanos") / 1e9),
                report.getLong("signals"), report.getLong("churnThreads"), churnEvents, report.getLong("victims"),
                deoptimizations, report.getLong("gcCount"), report.getLong("unloadedClasses"), chaos.rcHistogram(),
                scan.requestEvents, scan.failedEvents);
        System.out.println(summary);

        // The churn must really have happened, or the run proves nothing.
        long threadFloor = Math.min(1000, 10L * seconds);
        if (report.getLong("churnThreads") < threadFloor) {
            problems.add("fewer than " + threadFloor + " short-lived threads");
        }
        if (churnEvents == 0) {
            problems.add("no event of a short-lived thread");
        }
        if (report.getLong("victims") < 10 || deoptimizations < 10) {
            problems.add("too little deoptimization (victims run, deoptimizations recorded)");
        }
        if (report.getLong("unloadedClasses") < 1) {
            problems.add("no class was unloaded");
        }
        if (report.getLong("gcCount") < 10) {
            problems.add("fewer than 10 GCs");
        }
        if (report.getLong("issued") < 100L * seconds) {
            problems.add("fewer than 100 requests a second: the pacers did not run");
        }
        if (!problems.isEmpty()) {
            fail(String.join("\n", problems) + "\n" + summary + "\n" + chaos + "\nstderr:\n" + run.stderr());
        }
    }

    private static Map<Integer, Set<String>> threadNames(Path file) throws Exception {
        Map<Integer, Set<String>> names = new HashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            int space = line.indexOf(' ');
            if (space > 0) {
                names.computeIfAbsent(Integer.parseInt(line.substring(0, space)), k -> new HashSet<>())
                        .add(line.substring(space + 1));
            }
        }
        return names;
    }

    /**
     * JDK 11 has no jdk.Deoptimization event: its compilation log names the method of every
     * uncommon trap taken, on the line after the trap's.
     */
    private static long uncommonTrapsOfVictims(Path compilationLog) throws IOException {
        List<String> lines = Files.readAllLines(compilationLog, StandardCharsets.UTF_8);
        long count = 0;
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).startsWith("<uncommon_trap thread=")
                    && lines.get(i + 1).contains("method='" + DeoptVictim.class.getName())) {
                count++;
            }
        }
        return count;
    }

    private static long deoptimizationsOfVictims(RequestScan scan) {
        long count = 0;
        for (RecordedEvent event : scan.kept) {
            RecordedMethod method = event.getValue("method");
            if (method != null && method.getType() != null
                    && method.getType().getName().startsWith("io.stackreq.reliability.app.DeoptVictim")) {
                count++;
            }
        }
        return count;
    }
}
