package io.stackreq.reliability.app;

import java.util.concurrent.atomic.AtomicBoolean;

import io.stackreq.testapp.Args;
import io.stackreq.testapp.Report;

/**
 * For {@code file=} paths that cannot be written: signal-driven requests (4 pacers x
 * {@code hz}) on two workers until {@code requests} ids were handed out; then Disable (the last
 * environment: stackreq flushes and writes a chunk, which must fail by now if it ever does),
 * Enable again and five requests from normal code, the probe: a request accepted after the
 * file= recording stopped can never be written.
 *
 * <p>Report: {@code enable.rc}, {@code disable.rc}, {@code enable2.rc}, {@code probe} (the five
 * return codes), {@code issued}. Results (libchaos) to {@code results} when given.
 */
public final class FileSinkApp {
    private FileSinkApp() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        Report report = Report.afterEnable(Chaos.enable());
        AtomicBoolean running = new AtomicBoolean(true);
        Workloads.startRegistered("sink-", running, 0, 1);
        Chaos.startPacersOrThrow(4, a.getInt("hz", 1000), 0);
        long requests = a.getLong("requests", 2000);
        while (Chaos.issued() < requests) {
            Thread.sleep(20);
        }
        Chaos.stopPacers();
        running.set(false);
        report.put("disable.rc", Chaos.disable());
        report.put("enable2.rc", Chaos.enable());
        StringBuilder probe = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            probe.append(Chaos.resultOf(Chaos.requestHere())).append(' ');
        }
        report.put("probe", probe.toString().trim());
        report.put("issued", Chaos.issued());
        if (a.has("results")) {
            Chaos.writeResultsOrThrow(a.get("results"));
        }
        report.write(a.path("out"));
    }
}
