package bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.stackreq.apps.App;

/**
 * Applications of {@code io.stackreq.apps} on threads of their own in one JVM, round after round,
 * until a wall time has passed or their threads have used a CPU time: the many threads and varied
 * stacks of a service, for the flame-graph benchmark. Prints one line the harness reads:
 * {@code MIX threads=.. rounds=.. seconds=.. cpuSeconds=..} (cpuSeconds: the application threads' own).
 *
 * <pre>bench.ServiceMix wall=SECONDS|cpu=SECONDS NAME=THREADS[,NAME=THREADS...]</pre>
 * NAME: one of {@link App#NAMES}.
 */
public final class ServiceMix {
    private ServiceMix() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !args[0].matches("(wall|cpu)=\\d+")) {
            System.err.println("usage: bench.ServiceMix wall=SECONDS|cpu=SECONDS NAME=THREADS[,NAME=THREADS...]");
            System.exit(2);
        }
        boolean byCpu = args[0].startsWith("cpu=");
        long limitNanos = Long.parseLong(args[0].substring(args[0].indexOf('=') + 1)) * 1_000_000_000L;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong rounds = new AtomicLong();
        List<Throwable> failures = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<App> apps = new ArrayList<>();
        for (String spec : args[1].split(",")) {
            String name = spec.substring(0, spec.indexOf('='));
            int count = Integer.parseInt(spec.substring(spec.indexOf('=') + 1));
            // An application of several threads (the databases, the HTTP service) serves them all from its
            // one state, as under AppMain; one of a single thread is its own worker, so each thread gets
            // an instance of its own.
            App shared = null;
            for (int t = 0; t < count; t++) {
                App app = shared;
                if (app == null) {
                    app = App.named(name);
                    app.setUp();
                    apps.add(app);
                    if (app.threads() > 1) shared = app;
                }
                App served = app;
                int index = t;
                threads.add(new Thread(() -> {
                    try (App.Worker worker = served.worker(index)) {
                        for (int round = 0; !stop.get(); round++) {
                            worker.round(round);
                            rounds.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        synchronized (failures) { failures.add(e); }
                        stop.set(true);
                    }
                }, name + "-" + (t + 1)));
            }
        }
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime();
        threads.forEach(Thread::start);
        while (!stop.get()) {
            Thread.sleep(100);
            long used = byCpu ? cpuNanos(cpu, threads) : System.nanoTime() - start;
            if (used >= limitNanos) stop.set(true);
        }
        long cpuNanos = cpuNanos(cpu, threads);
        for (Thread thread : threads) thread.join();
        for (App app : apps) app.tearDown();
        if (!failures.isEmpty()) {
            failures.get(0).printStackTrace();
            System.exit(1);
        }
        System.out.printf("MIX threads=%d rounds=%d seconds=%.3f cpuSeconds=%.3f%n", threads.size(), rounds.get(),
                (System.nanoTime() - start) / 1e9, cpuNanos / 1e9);
    }

    /** CPU time of the threads still alive (a thread's time is gone once it ends: read before joining). */
    private static long cpuNanos(ThreadMXBean cpu, List<Thread> threads) {
        long sum = 0;
        for (Thread thread : threads) sum += Math.max(0, cpu.getThreadCpuTime(thread.getId()));
        return sum;
    }
}
