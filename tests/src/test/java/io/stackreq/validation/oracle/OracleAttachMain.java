package io.stackreq.validation.oracle;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

/**
 * The oracle's target JVM for the attach ({@code -Dstackreq.oracle.attach=true}, started without
 * libstackreq.so and liboracle.so): every workload runs on its own thread ({@code oracle-<name>})
 * for the warm-up time; then, once all have warmed up, the pid goes to the ready file and each
 * thread waits, polling {@link ShadowStack#isOracleLoaded()}, until liboracle.so is attached (after
 * libstackreq.so). Then the same threads move their shadow stacks into liboracle.so's memory (and
 * get their signals) and run their workload for the measured time, all at once.
 *
 * <p>Usage: {@code OracleAttachMain <warm-up seconds> <seconds> <workload>[,...] <ready file>};
 * prints the same {@code oracle-summary} line as {@link OracleMain}.
 */
public final class OracleAttachMain {
    private OracleAttachMain() {
    }

    public static void main(String[] args) throws Exception {
        double warmupSeconds = Double.parseDouble(args[0]);
        double seconds = Double.parseDouble(args[1]);
        List<String> names = List.of(args[2].split(","));
        Path readyFile = Path.of(args[3]);
        CountDownLatch warmedUp = new CountDownLatch(names.size());
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (String name : names) {
            int tag = OracleMain.WORKLOADS.indexOf(name) + 1;
            if (tag == 0) {
                throw new IllegalArgumentException(
                        "unknown workload " + name + " (known: " + OracleMain.WORKLOADS + ")");
            }
            int period = OracleMain.CHECK_PERIODS.get(name);
            Thread thread = new Thread(() -> {
                boolean warm = false;
                try {
                    ShadowStack.setWorkload(tag, period);
                    runFor(name, warmupSeconds);
                    warm = true;
                    warmedUp.countDown();
                    while (!ShadowStack.isOracleLoaded()) {
                        Thread.sleep(10);
                    }
                    ShadowStack.setWorkload(tag, period);
                    runFor(name, seconds);
                } catch (Throwable t) {
                    if (!warm) {
                        warmedUp.countDown();
                    }
                    t.printStackTrace();
                    failures.add(name + ": " + t);
                }
            }, "oracle-" + name);
            threads.add(thread);
            thread.start();
        }
        warmedUp.await();
        Files.writeString(readyFile, Long.toString(ProcessHandle.current().pid()));
        for (Thread thread : threads) {
            thread.join();
        }
        if (ShadowStack.isOracleLoaded()) {
            OracleNative.finish();
        }
        OracleMain.reportAndExit(failures);
    }

    private static void runFor(String name, double seconds) throws Exception {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        do {
            OracleMain.round(name);
        } while (System.nanoTime() < end);
    }
}
