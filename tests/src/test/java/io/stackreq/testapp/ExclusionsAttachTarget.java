package io.stackreq.testapp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;


/**
 * A JVM started without agents in which JFR excludes threads before and after libstackreq.so is
 * attached (issue 28, item 4): a RecordingStream runs from the start (JFR excludes its dispatch
 * thread when it starts dispatching), the test loads libstackreq.so and librequester.so with
 * {@code jcmd JVMTI.agent_load}, then a second RecordingStream starts. Each stream's dispatch
 * thread requests for itself from a flush callback, by NULL and by name; main requests for each
 * dispatch thread by name and for itself; a worker started before the attach requests for itself.
 *
 * <p>Protocol of {@link io.stackreq.tests.support.AttachTargetRun}: argument {@code dir}; prints
 * one {@code cpu} line and writes {@code dir/pid} once the first stream dispatches, waits for
 * {@code dir/attached} (written by the test after both loads), writes its report to
 * {@code dir/report.txt}, and exits when {@code dir/stop} exists. Report keys: {@code rc.NAME}
 * (return codes), {@code enable.rc}.
 */
public final class ExclusionsAttachTarget {
    private ExclusionsAttachTarget() {
    }

    /** A RecordingStream whose dispatch thread requests once, when asked to, from a flush callback. */
    static final class Stream implements AutoCloseable {
        final JfrStream stream = JfrStream.open();
        final CountDownLatch dispatching = new CountDownLatch(1);
        final CountDownLatch requested = new CountDownLatch(1);
        volatile boolean request;
        volatile Thread thread;

        Stream(Report report, String name, long firstId) {
            stream.onFlush(() -> {
                thread = Thread.currentThread();
                dispatching.countDown();
                if (request && requested.getCount() != 0) {
                    report.put("rc." + name + "Self", Requester.request(null, firstId));
                    report.put("rc." + name + "Current", Requester.request(Thread.currentThread(), firstId + 1));
                    requested.countDown();
                }
            });
            stream.startAsync();
        }

        void await(CountDownLatch latch, String what) throws InterruptedException {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no flush in 60 s: " + what);
            }
        }

        @Override
        public void close() {
            stream.close();
        }
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        Path dir = a.path("dir");
        Report report = new Report();
        CountDownLatch workerGo = new CountDownLatch(1);
        Thread worker = new Thread(() -> {
            try {
                workerGo.await();
            } catch (InterruptedException e) {
                return;
            }
            report.put("rc.worker", Requester.request(null, 7));
        }, "worker-before-attach");
        worker.start();
        try (Stream before = new Stream(report, "before", 1)) {
            before.await(before.dispatching, "stream started before the attach");
            System.out.println("cpu 0 0 0 0");
            PidFile.write(dir);
            while (!Files.exists(dir.resolve("attached"))) {
                if (Files.exists(dir.resolve("stop"))) {
                    // The test gave up before its attach: no report, and no wait for its timeout.
                    System.exit(3);
                }
                Thread.sleep(50);
            }
            report.put("enable.rc", Requester.enable());
            try (Stream after = new Stream(report, "after", 3)) {
                after.await(after.dispatching, "stream started after the attach");
                before.request = true;
                after.request = true;
                before.await(before.requested, "requests of the stream started before the attach");
                after.await(after.requested, "requests of the stream started after the attach");
                report.put("rc.ofBefore", Requester.request(before.thread, 5));
                report.put("rc.ofAfter", Requester.request(after.thread, 6));
            }
            report.put("rc.main", Requester.request(null, 8));
            workerGo.countDown();
            worker.join();
            // Once the stream is closed JFR includes its thread again (when it still runs).
        }
        report.write(dir.resolve("report.txt"));
        while (!Files.exists(dir.resolve("stop"))) {
            Thread.sleep(50);
        }
    }
}
