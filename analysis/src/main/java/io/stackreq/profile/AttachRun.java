package io.stackreq.profile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.stackreq.model.InputException;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Profiles a running JVM for a while: loads both agents into it (the attach API), starts a JFR
 * recording with {@code jdk.StackTraceRequest} enabled, waits while showing progress, then stops
 * the perf agent and the recording, which the JVM writes to the output directory. The agents stay
 * loaded: a later run finds libstackreq there (its second load changes nothing) and starts the
 * perf agent again.
 */
public final class AttachRun {
    /** The recording's name in the target, so that a concurrent profile of the same JVM is refused. */
    static final String RECORDING_NAME = "stackreq-profile";

    /** @param seconds how long the perf agent sampled; @param interrupted whether Ctrl-C ended it early */
    public record Result(long pid, double seconds, boolean interrupted) {
    }

    private AttachRun() {
    }

    /**
     * @param interactive whether stderr is a terminal: then the progress line updates in place
     *                    twice a second, else a progress line is printed every 10 seconds
     * @throws InputException when the JVM cannot be profiled or exits during the profile (the
     *                        output files are then removed)
     */
    public static Result run(ProfileSettings settings, long pid, Duration duration, PrintStream err,
            boolean interactive) throws IOException, InterruptedException {
        try (AttachedJvm jvm = AttachedJvm.attach(pid)) {
            ProfileRun.prepareOutputs(settings);
            // From here to the end, Ctrl-C ends the profile (early, or at once when it comes before
            // the sampling started) rather than the CLI, so that the JVM is always left as it was.
            CountDownLatch interrupt = new CountDownLatch(1);
            SignalHandler previous = onInterrupt(interrupt);
            try {
                return profile(jvm, settings, duration, interrupt, err, interactive);
            } catch (InputException e) {
                if (!alive(pid)) {
                    throw exitedDuringProfile(settings, pid, e);
                }
                removeOutputs(settings);
                throw e;
            } finally {
                if (previous != null) {
                    Signal.handle(new Signal("INT"), previous);
                }
            }
        }
    }

    private static Result profile(AttachedJvm jvm, ProfileSettings settings, Duration duration,
            CountDownLatch interrupt, PrintStream err, boolean interactive) throws InterruptedException {
        long pid = jvm.pid();
        jvm.loadAgent(settings.agents().requestAgent(), settings.requestAgentOptions());
        jvm.diagnosticCommand("JFR.start name=" + RECORDING_NAME + " settings=default settings="
                + settings.agents().eventSettings(),
                "Started recording");
        boolean recording = true;
        boolean sampling = false;
        try {
            jvm.loadAgent(settings.agents().perfAgent(), "start," + settings.perfAgentOptions());
            sampling = true;
            err.printf(Locale.ROOT, "stackreq: profiling JVM %d (Java %d) for %s; Ctrl-C ends it early%n", pid,
                    jvm.feature(), text(duration));
            err.flush();
            WaitOutcome waited = waitFor(pid, duration, interrupt, settings.samples(), err, interactive);
            if (waited.exited) {
                throw new InputException("JVM " + pid + " exited");
            }
            jvm.loadAgent(settings.agents().perfAgent(), "stop");
            sampling = false;
            jvm.diagnosticCommand("JFR.stop name=" + RECORDING_NAME + " filename=" + settings.recording(),
                    "Stopped recording");
            recording = false;
            return new Result(pid, waited.seconds, waited.interrupted);
        } finally {
            if (alive(pid)) {
                leaveAsItWas(jvm, settings, sampling, recording);
            }
        }
    }

    /** After a failure: no sampling and no recording of ours left running in the JVM. */
    private static void leaveAsItWas(AttachedJvm jvm, ProfileSettings settings, boolean sampling, boolean recording) {
        try {
            if (sampling) {
                jvm.loadAgent(settings.agents().perfAgent(), "stop");
            }
            if (recording) {
                jvm.diagnosticCommand("JFR.stop name=" + RECORDING_NAME, "Stopped recording");
            }
        } catch (InputException e) {
            // The failure being reported says more than this one.
        }
    }

    private record WaitOutcome(double seconds, boolean interrupted, boolean exited) {
    }

    private static WaitOutcome waitFor(long pid, Duration duration, CountDownLatch interrupt, Path samples,
            PrintStream err, boolean interactive) throws InterruptedException {
        ProgressLine progress = new ProgressLine(err, samples, interactive);
        long updateMillis = interactive ? 500 : 10_000;
        long deadline = System.nanoTime() + duration.toNanos();
        boolean interrupted = false;
        boolean exited = false;
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                break;
            }
            // The JVM's exit is checked at least twice a second, whatever the progress period.
            if (interrupt.await(Math.min(Math.min(left, updateMillis), 500), TimeUnit.MILLISECONDS)) {
                interrupted = true;
                break;
            }
            if (!alive(pid)) {
                exited = true;
                break;
            }
            progress.updateIfDue(updateMillis);
        }
        progress.clear();
        return new WaitOutcome(progress.elapsedSeconds(), interrupted, exited);
    }

    private static SignalHandler onInterrupt(CountDownLatch interrupt) {
        try {
            return Signal.handle(new Signal("INT"), signal -> interrupt.countDown());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static InputException exitedDuringProfile(ProfileSettings settings, long pid, InputException cause)
            throws IOException {
        removeOutputs(settings);
        return new InputException("JVM " + pid + " exited during the profile; nothing was written to "
                + settings.output(), cause);
    }

    private static void removeOutputs(ProfileSettings settings) throws IOException {
        Files.deleteIfExists(settings.recording());
        Files.deleteIfExists(settings.samples());
    }

    private static String text(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : String.format(Locale.ROOT, "%.3f s", millis / 1e3);
    }
}
