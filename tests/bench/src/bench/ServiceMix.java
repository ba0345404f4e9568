package bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Workloads on threads of their own in one JVM, round after round, until a wall time has passed or
 * their threads have used a CPU time: the many threads and varied stacks of a service, for the
 * flame-graph benchmark. Prints one line the harness reads:
 * {@code MIX threads=.. rounds=.. seconds=.. cpuSeconds=..} (cpuSeconds: the workload threads' own).
 *
 * <pre>bench.ServiceMix wall=SECONDS|cpu=SECONDS NAME=THREADS[,NAME=THREADS...]</pre>
 * NAME: h2, lucene, jackson, javac (javac needs -Dbench.javacSources=ARGFILE and
 * -Dbench.javacClasspath=PATH: the tree it compiles each round).
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
        for (String spec : args[1].split(",")) {
            String name = spec.substring(0, spec.indexOf('='));
            int count = Integer.parseInt(spec.substring(spec.indexOf('=') + 1));
            for (int t = 1; t <= count; t++) {
                Workload workload = workload(name, t);
                threads.add(new Thread(() -> {
                    try {
                        workload.setUp();
                        for (int round = 0; !stop.get(); round++) {
                            workload.round(round);
                            rounds.incrementAndGet();
                        }
                        workload.tearDown();
                    } catch (Throwable e) {
                        synchronized (failures) { failures.add(e); }
                        stop.set(true);
                    }
                }, name + "-" + t));
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
        if (!failures.isEmpty()) {
            failures.get(0).printStackTrace();
            System.exit(1);
        }
        System.out.printf("MIX threads=%d rounds=%d seconds=%.3f cpuSeconds=%.3f%n", threads.size(), rounds.get(),
                (System.nanoTime() - start) / 1e9, cpuNanos / 1e9);
    }

    private static Workload workload(String name, int instance) {
        switch (name) {
            case "h2": return new H2Workload("mix" + instance);
            case "javac":
                return new JavacWorkload(Path.of(System.getProperty("bench.javacSources")),
                        System.getProperty("bench.javacClasspath"));
            default: return Workload.named(name);
        }
    }

    /** CPU time of the threads still alive (a thread's time is gone once it ends: read before joining). */
    private static long cpuNanos(ThreadMXBean cpu, List<Thread> threads) {
        long sum = 0;
        for (Thread thread : threads) sum += Math.max(0, cpu.getThreadCpuTime(thread.getId()));
        return sum;
    }
}
