package io.stackreq.testapp;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A JVM that dies while busy threads request stack traces from CPU timers (librequester.so): after
 * {@code seconds} (4) it is killed with SIGKILL ({@code way=kill}), crashes with SIGSEGV ({@code segv}:
 * the main thread writes to address 0, as a crashing JVM does; a SIGSEGV sent from outside lands on
 * any thread, also on one inside HotSpot's thread-suspension handler, where HotSpot's own emergency
 * dump can hang), runs out of heap under {@code -XX:+CrashOnOutOfMemoryError} ({@code oom}) or calls
 * {@code Runtime.halt} ({@code halt}).
 *
 * <p>What it accepted survives it in {@code out}, a journal it appends to every 100 ms: a line
 * {@code epochNanos issued id id ...} says that by that instant ids up to {@code issued} had been
 * requested, and lists the accepted ones among those the previous line did not cover (each line is
 * written a period later, when those handlers have long returned). The last line,
 * {@code death epochNanos}, is written just before the JVM is made to die.
 */
public final class CrashApp {
    private static final int THREADS = 4;
    private static final int INTERVAL_US = 1000;
    private static final long JOURNAL_PERIOD_MS = 100;

    private static volatile boolean stop;
    private static final Object JOURNAL_LOCK = new Object();

    private CrashApp() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        if (Requester.enable() != JvmtiError.NONE) {
            throw new IllegalStateException("EnableRequestStackTrace failed");
        }
        String way = a.get("way");
        long millis = (long) (a.getDouble("seconds", 4) * 1000);
        try (FileChannel journal = FileChannel.open(a.path("out"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                Thread thread = new Thread(CrashApp::spin, "busy-" + i);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
            Thread journalThread = new Thread(() -> keepJournal(journal), "journal");
            journalThread.setDaemon(true);
            journalThread.start();
            Thread.sleep(millis);
            synchronized (JOURNAL_LOCK) {
                append(journal, "death " + ContinuousApp.epochNanos());
            }
            die(way);
            Thread.sleep(60_000);
            stop = true;
            throw new IllegalStateException("still alive a minute after way=" + way);
        }
    }

    private static void die(String way) throws IOException {
        String pid = Long.toString(ProcessHandle.current().pid());
        switch (way) {
            case "kill":
                new ProcessBuilder("kill", "-9", pid).start();
                break;
            case "segv":
                writeToAddressZero();
                break;
            case "oom":
                // Far more than -Xmx: OutOfMemoryError at once, which the flag makes a crash.
                long[] huge = new long[Integer.MAX_VALUE - 16];
                System.out.println(huge.length);
                break;
            case "halt":
                Runtime.getRuntime().halt(3);
                break;
            default:
                throw new IllegalArgumentException("unknown way " + way);
        }
    }

    private static void writeToAddressZero() {
        try {
            Field field = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            field.setAccessible(true);
            Object unsafe = field.get(null);
            unsafe.getClass().getMethod("putAddress", long.class, long.class).invoke(unsafe, 0L, 0L);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot reach sun.misc.Unsafe to crash", e);
        }
    }

    private static void spin() {
        Requester.startTimerOrThrow(INTERVAL_US);
        while (!stop) {
            BusyThreads.sink += BusyThreads.burn(System.nanoTime() + 10_000_000);
        }
    }

    private static void keepJournal(FileChannel journal) {
        long written = 0;
        long previousTime = 0;
        long previousIssued = 0;
        try {
            while (true) {
                long time = ContinuousApp.epochNanos();
                long issued = Requester.issued();
                if (previousTime != 0) {
                    StringBuilder line = new StringBuilder().append(previousTime).append(' ').append(previousIssued);
                    for (long id : Requester.acceptedIds()) {
                        if (id > written && id <= previousIssued) {
                            line.append(' ').append(id);
                        }
                    }
                    written = previousIssued;
                    synchronized (JOURNAL_LOCK) {
                        append(journal, line.toString());
                    }
                }
                previousTime = time;
                previousIssued = issued;
                Thread.sleep(JOURNAL_PERIOD_MS);
            }
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void append(FileChannel journal, String line) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.US_ASCII));
        while (bytes.hasRemaining()) {
            journal.write(bytes);
        }
    }
}
