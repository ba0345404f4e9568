package io.stackreq.testapp;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import io.stackreq.demo.TwoPhase;

/**
 * A JVM started without agents whose work runs on its {@code main} thread (issue 28): main runs
 * the demo's {@link TwoPhase#methodA}, {@link TwoPhase#methodB} and {@link AttachTarget#methodC}
 * in turn, 2, 1 and 1 units of the same loop body each (about 50/25/25), and adds the thread CPU
 * time of every call (read between the calls) to the method's total, as {@link AttachTarget}
 * does.
 *
 * <p>With {@code pool=N}, N pool threads that all share one name ({@value #POOL_THREAD_NAME}) are
 * started before the warm-up and stay parked on their empty queue until {@code dir/wake} exists
 * (the test writes it once the profiler is attached); then each runs the same mix, its CPU time
 * added to the same totals.
 *
 * <p>Arguments ({@code key=value}): {@code dir} (required), {@code warmupSeconds} (3),
 * {@code pool} (0), {@code unit} (iterations of one unit, 2,000,000: a few ms here; under qemu,
 * where the sampler is a CPU-time timer that fires at kernel ticks of 4 ms, also about one tick,
 * and there, on a busy machine, units of a tick or two gave methodA 4-8 points too many of the
 * samples, units of 10 ticks none). After the warm-up it prints, about every 100 ms, {@code cpu <A ns> <B ns> <C ns>
 * <pool threads woken>}, and writes its pid to {@code dir/pid} after the first such line. It exits
 * when {@code dir/stop} exists.
 */
public final class MainThreadTarget {
    /** The name every pool thread has. */
    public static final String POOL_THREAD_NAME = "main-target-pool";

    private static long unit = 2_000_000;
    private static final LongAdder[] CPU_NANOS = {new LongAdder(), new LongAdder(), new LongAdder()};
    private static final LongAdder POOL_WOKEN = new LongAdder();
    private static volatile boolean stopping;

    private MainThreadTarget() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        Path dir = a.path("dir");
        long warmupNanos = (long) (a.getDouble("warmupSeconds", 3) * 1e9);
        int poolSize = a.getInt("pool", 0);
        unit = a.getLong("unit", unit);
        ExecutorService pool = null;
        if (poolSize > 0) {
            ThreadPoolExecutor executor = new ThreadPoolExecutor(poolSize, poolSize, 0, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), task -> {
                        Thread thread = new Thread(task, POOL_THREAD_NAME);
                        thread.setDaemon(true);
                        return thread;
                    });
            executor.prestartAllCoreThreads();  // parked in the queue's take() from now on
            pool = executor;
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime();
        long nextLine = start + warmupNanos;
        boolean ready = false;
        boolean woken = false;
        long before = threads.getCurrentThreadCpuTime();
        while (true) {
            before = mix(threads, before);
            long now = System.nanoTime();
            if (now < nextLine) {
                continue;
            }
            nextLine = now + 100_000_000L;
            if (Files.exists(dir.resolve("stop"))) {
                break;
            }
            if (pool != null && !woken && Files.exists(dir.resolve("wake"))) {
                woken = true;
                for (int i = 0; i < poolSize; i++) {
                    pool.execute(MainThreadTarget::poolWork);
                }
            }
            System.out.println("cpu " + CPU_NANOS[0].sum() + " " + CPU_NANOS[1].sum() + " " + CPU_NANOS[2].sum() + " "
                    + POOL_WOKEN.sum());
            if (!ready) {
                PidFile.write(dir);
                ready = true;
            }
            before = threads.getCurrentThreadCpuTime();
        }
        stopping = true;
        if (pool != null) {
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private static void poolWork() {
        POOL_WOKEN.increment();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadCpuTime();
        while (!stopping) {
            before = mix(threads, before);
        }
    }

    /** One round of the mix; returns the thread's CPU time at its end. */
    private static long mix(ThreadMXBean threads, long before) {
        TwoPhase.methodA(2 * unit);
        long afterA = threads.getCurrentThreadCpuTime();
        TwoPhase.methodB(unit);
        long afterB = threads.getCurrentThreadCpuTime();
        AttachTarget.methodC(unit);
        long afterC = threads.getCurrentThreadCpuTime();
        CPU_NANOS[0].add(afterA - before);
        CPU_NANOS[1].add(afterB - afterA);
        CPU_NANOS[2].add(afterC - afterB);
        return afterC;
    }
}
