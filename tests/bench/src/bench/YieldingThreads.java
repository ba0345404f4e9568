package bench;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.LongAdder;

/**
 * Virtual threads that do nothing but {@code Thread.yield()}: each yield unmounts the virtual
 * thread from its carrier and mounts it again, so the run measures what a mount and unmount pair
 * costs, including what agents do at JVMTI's VirtualThreadMount and VirtualThreadUnmount.
 *
 * <p>Usage: {@code YieldingThreads THREADS SECONDS} (JDK 21+; compiled for 17, so the virtual
 * thread API is reached by reflection). Runs one second of warm-up, then prints
 * {@code YIELDS yields=.. nanos=..}.
 */
public final class YieldingThreads {
    private static volatile boolean counting;
    private static volatile boolean stop;

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long nanos = (long) (Double.parseDouble(args[1]) * 1e9);
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Method unstarted = Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class);
        LongAdder yields = new LongAdder();
        Thread[] started = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            started[i] = (Thread) unstarted.invoke(builder, (Runnable) () -> {
                while (!stop) {
                    Thread.yield();
                    if (counting) yields.increment();
                }
            });
            started[i].start();
        }
        Thread.sleep(1000);
        counting = true;
        long start = System.nanoTime();
        Thread.sleep(nanos / 1_000_000);
        counting = false;
        long elapsed = System.nanoTime() - start;
        stop = true;
        for (Thread thread : started) thread.join();
        System.out.println("YIELDS yields=" + yields.sum() + " nanos=" + elapsed);
    }
}
