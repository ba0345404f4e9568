// The program tests/aarch64.sh run samples on the aarch64 JDK: CPU-bound Java code on the main
// thread and one more, through recursion (deep stacks), a loop the JIT compiles and calls into
// the JDK, for the seconds given (default 20).
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

    static void work(long until) {
        while (System.nanoTime() < until) {
            sink += fibonacci(22);
            sink += hashes(2000);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 20;
        long until = System.nanoTime() + seconds * 1_000_000_000L;
        Thread other = new Thread(() -> work(until), "worker");
        other.start();
        work(until);
        other.join();
        System.out.println("Workload: done, sink " + sink);
    }
}
