package io.stackreq.reliability.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import io.stackreq.testapp.Args;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * Ends the JVM while signal-driven requests are in flight. Daemon workers (compute, allocate,
 * sleep) are signalled by 4 pacers x 1 kHz; after {@code runMs} (800) the app, by {@code mode}:
 * <ul>
 * <li>{@code exit}: calls System.exit(0) from main while the pacers fire;</li>
 * <li>{@code return}: returns from main while the pacers fire;</li>
 * <li>{@code disable} (with the agent option file=): calls DisableRequestStackTrace while the
 * pacers fire, reads the file= recording right away to check that every request accepted before
 * Disable returned is already in it, lets the now refused requests run for a while, enables again,
 * stops the pacers, writes the results itself and returns.</li>
 * </ul>
 * libchaos.so (options out=, death=) writes the results at VMDeath in the first two modes.
 *
 * <p>Arguments: {@code mode}, {@code out} report (written before the end in every mode),
 * {@code file} the file= recording (mode disable), {@code results} (mode disable), {@code runMs}.
 *
 * <p>Report (disable): {@code disable.rc}, {@code beforeDisable}, {@code afterDisable} (ids handed
 * out before the call and when it had returned), {@code acceptedByDisable} (ids up to
 * afterDisable that returned NONE), {@code missingAtDisable} (those not yet in the file),
 * {@code enableAt}, {@code enabledAt} (ids around the second Enable), {@code enable2.rc}.
 */
public final class ShutdownApp {
    private ShutdownApp() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        String mode = a.get("mode");
        Report report = Report.afterEnable(Chaos.enable());
        AtomicBoolean running = new AtomicBoolean(true);
        Workloads.startRegistered("shutdown-", running, 0, 1, 3);
        Chaos.startPacersOrThrow(4, 1000, 0);
        Thread.sleep(a.getInt("runMs", 800));
        if (mode.equals("exit")) {
            report.put("issuedAtExit", Chaos.issued());
            report.write(a.path("out"));
            Chaos.requestHere();
            System.exit(0);
        } else if (mode.equals("return")) {
            report.put("issuedAtReturn", Chaos.issued());
            report.write(a.path("out"));
            Chaos.requestHere();
        } else if (mode.equals("disable")) {
            disableMidFlight(a, report);
        } else {
            throw new IllegalArgumentException("mode " + mode);
        }
    }

    private static void disableMidFlight(Args a, Report report) throws Exception {
        long before = Chaos.issued();
        int rc = Chaos.disable();
        long after = Chaos.issued();
        report.put("disable.rc", rc);
        report.put("beforeDisable", before);
        report.put("afterDisable", after);
        if (!Chaos.awaitResults(after, 10_000)) {
            throw new IllegalStateException("requests up to id " + after + " did not return");
        }
        Map<Long, Integer> inFile = userDataCounts(a.path("file"));
        long accepted = 0;
        long missing = 0;
        StringBuilder missingIds = new StringBuilder();
        for (long id = 1; id <= after; id++) {
            if (Chaos.resultOf(id) == JvmtiError.NONE) {
                accepted++;
                if (!inFile.containsKey(id)) {
                    missing++;
                    if (missing <= 20) {
                        missingIds.append(id).append(' ');
                    }
                }
            }
        }
        report.put("acceptedByDisable", accepted);
        report.put("missingAtDisable", missing);
        report.put("missingAtDisableIds", missingIds.toString().trim());
        Thread.sleep(300);
        report.put("enableAt", Chaos.issued());
        report.put("enable2.rc", Chaos.enable());
        report.put("enabledAt", Chaos.issued());
        Thread.sleep(500);
        Chaos.stopPacers();
        Chaos.writeResultsOrThrow(a.get("results"));
        report.put("issued", Chaos.issued());
        report.write(a.path("out"));
    }

    /** userData -> number of jdk.StackTraceRequest events in the file as it is now. */
    static Map<Long, Integer> userDataCounts(Path file) throws IOException {
        Map<Long, Integer> counts = new HashMap<>();
        if (!Files.exists(file)) {
            return counts;
        }
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                if (event.getEventType().getName().equals("jdk.StackTraceRequest")) {
                    counts.merge(event.getLong("userData"), 1, Integer::sum);
                }
            }
        }
        return counts;
    }
}
