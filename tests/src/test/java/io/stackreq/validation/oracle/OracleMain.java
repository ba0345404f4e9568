package io.stackreq.validation.oracle;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.stackreq.apps.App;
import io.stackreq.validation.oracle.workload.ClassLoading;
import io.stackreq.validation.oracle.workload.Exceptions;
import io.stackreq.validation.oracle.workload.Inlining;
import io.stackreq.validation.oracle.workload.JniLoop;
import io.stackreq.validation.oracle.workload.OsrLoop;
import io.stackreq.validation.oracle.workload.Recursion;
import io.stackreq.validation.oracle.workload.Returns;
import io.stackreq.validation.oracle.workload.Streams;
import io.stackreq.validation.oracle.workload.Threads;

/**
 * The oracle's target JVM: runs each workload on its own thread ({@code oracle-<name>}, shadow
 * stack tagged with the workload's number = its index in {@link #ALL} + 1) for the given
 * wall time, one after the other, then stops the signals and writes the snapshots. A real
 * application ({@link App}, named as {@link App#NAMES}) runs on as many threads as it has workers,
 * each started by the workload's thread (so tagged as it is), round after round until the time is
 * up; its own packages are woven ({@link OracleAgent#WEAVE_PROPERTY}).
 *
 * <p>Usage: {@code OracleMain <seconds-per-workload> <workload>[,<workload>...]}; prints
 * {@code oracle-summary woven=<classes> weave-failures=<n> corrupt=<n>} last.
 */
public final class OracleMain {
    public static final List<String> WORKLOADS = List.of("recursion", "exceptions", "inlining", "osr", "streams",
            "threads", "classloading", "jni", "returns");
    /** The workloads written for the oracle, then the real applications. */
    public static final List<String> ALL;

    static {
        List<String> all = new ArrayList<>(WORKLOADS);
        all.addAll(App.NAMES);
        ALL = List.copyOf(all);
    }

    /**
     * Layer (a)/(b) runs at every n-th method entry: n per workload, for some hundred checks a
     * second (a thread of "inlining" enters methods millions of times a second, one of "jni" a
     * few thousand times; javac's thread some millions woven).
     */
    static final Map<String, Integer> CHECK_PERIODS = Map.ofEntries(Map.entry("recursion", 997),
            Map.entry("exceptions", 997), Map.entry("inlining", 40_009), Map.entry("osr", 97),
            Map.entry("streams", 4_099), Map.entry("threads", 3), Map.entry("classloading", 5), Map.entry("jni", 3),
            Map.entry("returns", 4_001),
            Map.entry("javac", 20_011), Map.entry("h2", 2_003), Map.entry("hsqldb", 2_003),
            Map.entry("lucene", 20_011), Map.entry("http", 2_003), Map.entry("jackson", 20_011));

    private OracleMain() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = Double.parseDouble(args[0]);
        List<String> names = List.of(args[1].split(","));
        List<String> failures = new ArrayList<>();
        for (String name : names) {
            int tag = ALL.indexOf(name) + 1;
            if (tag == 0) {
                throw new IllegalArgumentException("unknown workload " + name + " (known: " + ALL + ")");
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread thread = new Thread(() -> {
                ShadowStack.setWorkload(tag, CHECK_PERIODS.get(name));
                long end = System.nanoTime() + (long) (seconds * 1e9);
                try {
                    if (App.NAMES.contains(name)) {
                        runApp(App.named(name), end);
                    } else {
                        do {
                            round(name);
                        } while (System.nanoTime() < end);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "oracle-" + name);
            thread.start();
            thread.join();
            if (failure.get() != null) {
                failure.get().printStackTrace();
                failures.add(name + ": " + failure.get());
            }
        }
        OracleNative.finish();
        reportAndExit(failures);
    }

    /** The weaving summary line the run's reader looks for; exit 1 when a workload failed. */
    static void reportAndExit(Collection<String> failures) {
        System.out.println("oracle-summary woven=" + OracleAgent.WOVEN_CLASSES.get() + " weave-failures="
                + OracleAgent.FAILURES.get() + " corrupt=" + ShadowStack.CORRUPT.get() + " too-large-unwoven="
                + OracleAgent.TOO_LARGE.get());
        if (!failures.isEmpty()) {
            System.err.println("workloads failed: " + failures);
            System.exit(1);
        }
    }

    /** An application's workers, each on a thread of its own started from this one, round after round until end. */
    static void runApp(App app, long end) throws Exception {
        app.setUp();
        List<Thread> workers = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < app.threads(); t++) {
            int index = t;
            Thread worker = new Thread(() -> {
                try (App.Worker w = app.worker(index)) {
                    int round = 0;
                    do {
                        w.round(round++);
                    } while (System.nanoTime() < end && failure.get() == null);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "oracle-" + app.name() + "-" + t);
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
        app.tearDown();
        if (failure.get() != null) {
            throw new IllegalStateException(app.name() + " failed", failure.get());
        }
    }

    static void round(String name) throws Exception {
        // Source level 11: the workloads run on JDK 11 too (tests/pom.xml).
        switch (name) {
            case "recursion":
                Recursion.round();
                break;
            case "exceptions":
                Exceptions.round();
                break;
            case "inlining":
                Inlining.round();
                break;
            case "osr":
                OsrLoop.round();
                break;
            case "streams":
                Streams.round();
                break;
            case "threads":
                Threads.round();
                break;
            case "classloading":
                ClassLoading.round();
                break;
            case "jni":
                JniLoop.round();
                break;
            case "returns":
                Returns.round();
                break;
            default:
                throw new IllegalArgumentException(name);
        }
    }
}
