package io.stackreq.validation.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.stackreq.apps.App;

/** The real applications in the oracle's target JVM. */
public final class OracleApps {
    private OracleApps() {
    }

    /** {@link App#NAMES}. */
    public static List<String> names() {
        return App.NAMES;
    }

    /**
     * Runs the application's workers, each on a thread of its own started from this one (so tagged
     * as it is), round after round until end.
     */
    public static void run(String name, long end) throws Exception {
        App app = App.named(name);
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
}
