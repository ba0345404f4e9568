import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

// The program tests/aarch64.sh run samples on the aarch64 JDK: CPU-bound Java code on the main
// thread and one more, through recursion (deep stacks), a loop the JIT compiles and calls into
// the JDK, until each thread has used the CPU seconds given (default 20), and prints the CPU time
// spent in each of fibonacci and hashes (both threads). CPU time, not wall
// time: the sampler requests a stack every 10 ms of a thread's CPU time, so the number of
// requests is the same on a busy machine as on a quiet one (the run only takes longer), and the
// check's floor on it fails only when requests or events are lost.
public final class Workload {
    static volatile long sink;

    static long fibonacci(int n) {
        return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
    }

    static long hashes(int rounds) {
        long hash = 17;
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < rounds; i++) {
            text.setLength(0);
            text.append("round ").append(i).append(' ').append(hash);
            hash = hash * 31 + text.toString().hashCode();
        }
        return hash;
    }

    // Adds the CPU time each method took to nanos[0] (fibonacci) and nanos[1] (hashes), read
    // between the calls: the truth the check compares the recording's split between them with.
    static void work(ThreadMXBean threads, long cpuNanos, long[] nanos) {
        long now = threads.getCurrentThreadCpuTime(), until = now + cpuNanos;
        while (now < until) {
            long start = now;
            sink += fibonacci(22);
            long middle = threads.getCurrentThreadCpuTime();
            sink += hashes(2000);
            now = threads.getCurrentThreadCpuTime();
            nanos[0] += middle - start;
            nanos[1] += now - middle;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 20;
        long cpuNanos = seconds * 1_000_000_000L;
        // Not in a static initializer: stacks taken in one end at Workload.<clinit>, which the
        // check would count as cut short.
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] mine = new long[2], its = new long[2];
        Thread other = new Thread(() -> work(threads, cpuNanos, its), "worker");
        other.start();
        work(threads, cpuNanos, mine);
        other.join();
        System.out.println("Workload: CPU fibonacci " + (mine[0] + its[0]) + " ns, hashes " + (mine[1] + its[1]) + " ns");
    }
}
