package io.stackreq.reliability.app;

import java.util.concurrent.locks.LockSupport;

import io.stackreq.testapp.Args;
import io.stackreq.testapp.Report;

/**
 * Bad input to RequestStackTrace, Enable and Disable through libchaos.so, with a JFR recording
 * that enables the event (so a valid request is accepted). Each step's result goes to the report
 * as the returned code, or {@code exception:<class>} when the call left a Java exception pending.
 *
 * <p>Steps (report keys, userData in parentheses): {@code nullEnv.self} (1), {@code nullEnv.other}
 * (2), {@code nullEnv.enable}, {@code nullEnv.disable}, {@code enable}, {@code object.plain} (3),
 * {@code object.string} (4), {@code object.class} (5), {@code object.array} (6),
 * {@code deletedLocal.other} (7), {@code deletedLocal.self} (8), {@code deletedGlobal.other} (9),
 * {@code weakCleared} (10; {@code weakCleared.gcs} collections were needed), {@code weakLive} (11),
 * {@code control.other} (12), {@code control.self} (13).
 *
 * <p>Arguments: {@code out}; {@code steps} (comma separated prefixes of the step keys to run,
 * default all), so steps that may crash the JVM run in a JVM of their own.
 */
public final class BadInputApp {
    interface Call {
        int call();
    }

    private BadInputApp() {
    }

    private static String[] selected = {""};
    private static java.nio.file.Path out;

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        selected = a.get("steps", "").split(",");
        out = a.path("out");
        Report report = new Report();
        Thread target = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                LockSupport.park();
            }
        }, "bad-input-target");
        target.setDaemon(true);
        target.start();

        step(report, "nullEnv.self", () -> Chaos.requestNullEnv(null, 1));
        step(report, "nullEnv.other", () -> Chaos.requestNullEnv(target, 2));
        step(report, "nullEnv.enable", Chaos::enableNullEnv);
        step(report, "nullEnv.disable", Chaos::disableNullEnv);
        report.put("enable", Chaos.enable());
        step(report, "object.plain", () -> Chaos.requestObject(new Object(), 3));
        step(report, "object.string", () -> Chaos.requestObject("a thread", 4));
        step(report, "object.class", () -> Chaos.requestObject(Thread.class, 5));
        step(report, "object.array", () -> Chaos.requestObject(new Thread[] {target}, 6));
        step(report, "deletedLocal.other", () -> Chaos.requestDeletedLocal(target, 7));
        step(report, "deletedLocal.self", () -> Chaos.requestDeletedLocal(Thread.currentThread(), 8));
        step(report, "deletedGlobal.other", () -> Chaos.requestDeletedGlobal(target, 9));

        if (selected("weakCleared")) {
            long weak = Chaos.newWeak(new Thread("collected"));
            int gcs = 0;
            while (!Chaos.weakCleared(weak) && gcs < 200) {
                System.gc();
                gcs++;
            }
            report.put("weakCleared.gcs", Chaos.weakCleared(weak) ? gcs : -1);
            step(report, "weakCleared", () -> Chaos.requestWeak(weak, 10));
            Chaos.deleteWeak(weak);
        }

        long live = Chaos.newWeak(target);
        step(report, "weakLive", () -> Chaos.requestWeak(live, 11));
        Chaos.deleteWeak(live);
        step(report, "control.other", () -> Chaos.requestObject(target, 12));
        step(report, "control.self", () -> Chaos.requestObject(Thread.currentThread(), 13));
        report.write(a.path("out"));
    }

    private static boolean selected(String key) {
        for (String prefix : selected) {
            if (key.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static void step(Report report, String key, Call call) throws java.io.IOException {
        if (!selected(key)) {
            return;
        }
        String result;
        try {
            result = Integer.toString(call.call());
        } catch (Throwable t) {
            result = "exception:" + t.getClass().getName();
        }
        report.put(key, result);
        report.write(out);
    }
}
