package io.stackreq.reliability.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.stackreq.fixtures.Cli;
import io.stackreq.reliability.app.CliFuzzApp;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;

/** Runs the stackreq CLI in process (its non-exiting entry) or as {@code java -jar stackreq.jar}. */
public final class CliRun {
    private CliRun() {
    }

    /** Exit code (or "threw ..."), standard output and standard error of one run. */
    public record Result(String exit, String out, String err) {
        public List<String> errLines() {
            return err.lines().toList();
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + JvmRun.tail(out, 3000) + "\n--- stderr ---\n"
                    + JvmRun.tail(err, 3000);
        }
    }

    public static Result inProcess(Object... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        try {
            return new Result(Integer.toString(Cli.execute(out, err, args)), out.toString(), err.toString());
        } catch (Throwable t) {
            return new Result("threw " + t, out.toString(), err.toString());
        }
    }

    /** Where {@link Cli} is loaded from: a child JVM that calls {@link #inProcess} needs it on its class path. */
    public static Path fixtureClasses() {
        try {
            return Path.of(Cli.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code java <jvmFlags> -jar stackreq.jar args}, under {@code wrapper} (e.g. a umask). */
    public static JvmRun.Result child(Jdk jdk, Path workDir, String name, List<String> jvmFlags, List<String> wrapper,
            Object... args) {
        List<String> arguments = new ArrayList<>();
        for (Object arg : args) {
            arguments.add(arg.toString());
        }
        return JvmRun.cli(jdk, workDir, arguments).name(name).flags(jvmFlags.toArray(String[]::new))
                .wrapper(wrapper).timeout(Duration.ofSeconds(300)).start();
    }

    /** Exit code 2, exactly one line on stderr starting "stackreq: ", no stack trace; returns it. */
    public static String assertOneLineError(Result result) {
        assertEquals("2", result.exit(), () -> "exit code 2 expected\n" + result);
        return assertOneLine(result.err(), result.toString());
    }

    public static String assertOneLineError(JvmRun.Result result) {
        assertEquals(2, result.exitCode(), () -> "exit code 2 expected\n" + result);
        return assertOneLine(result.stderr(), result.toString());
    }

    private static String assertOneLine(String err, String context) {
        List<String> lines = err.lines().toList();
        assertEquals(1, lines.size(), () -> "one line on stderr expected\n" + context);
        assertTrue(lines.get(0).startsWith("stackreq: "), () -> "the line does not start with 'stackreq: '\n"
                + context);
        assertFalse(CliFuzzApp.STACK_TRACE.matcher(err).find(), () -> "a stack trace or exception name\n" + context);
        return lines.get(0);
    }
}
