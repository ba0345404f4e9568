package io.stackreq.validation;

import static org.junit.jupiter.api.Assertions.assertAll;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.stackreq.tests.support.Jdk;
import io.stackreq.validation.oracle.OracleMain;
import io.stackreq.validation.oracle.OracleRun;

/**
 * The oracle on a JDK of another architecture, run by tests/aarch64.sh under an emulator: the
 * same {@link OracleRun} (the same target JVMs, agents and checker, here on the host's JVM over
 * the files the emulated JVMs wrote) and the same assertions as {@link ValidationTest} ({@link
 * ValidationTest#oracleChecks}). Libraries of the emulated architecture come from system
 * properties stackreq.native.dir and stackreq.test.native.dir.
 *
 * <p>Usage: {@code EmulatedOracle JDK_HOME DIR SECONDS WORKLOADS SIGNALS SLOWDOWN [WRAPPER...]}:
 * WORKLOADS comma separated (of {@link OracleMain#WORKLOADS}), SIGNALS perf or cpu-timer (layer
 * (c)'s source), SLOWDOWN the factor on the target JVMs' timeouts, WRAPPER the emulator's command
 * ({@code qemu-aarch64-static -L ROOT}), none on a machine of that architecture. Prints the
 * oracle's table and examples; exits 1 naming every failed check.
 */
public final class EmulatedOracle {
    private EmulatedOracle() {
    }

    public static void main(String[] args) {
        if (args.length < 6) {
            System.err.println("usage: EmulatedOracle JDK_HOME DIR SECONDS WORKLOADS SIGNALS SLOWDOWN [WRAPPER...]");
            System.exit(2);
        }
        Jdk jdk = Jdk.of(args[0]);
        Path dir = Path.of(args[1]).toAbsolutePath();
        double seconds = Double.parseDouble(args[2]);
        List<String> workloads = List.of(args[3].split(","));
        OracleRun.Launch launch = new OracleRun.Launch(Arrays.asList(args).subList(6, args.length), args[4],
                Integer.parseInt(args[5]));
        long start = System.nanoTime();
        try {
            OracleRun.Result result = OracleRun.run(jdk, dir, workloads, seconds, launch);
            System.out.println(OracleTable.markdown(result, seconds));
            System.out.println(OracleTable.examples(result));
            assertAll(ValidationTest.oracleChecks(jdk, result));
        } catch (Throwable failure) {
            // JUnit's assertion errors (several at once from assertAll) name each failed check.
            System.out.println(failure.getMessage());
            System.err.printf(Locale.ROOT, "EmulatedOracle: %s FAILED after %.0f s (%s)%n", jdk,
                    (System.nanoTime() - start) / 1e9, failure.getClass().getSimpleName());
            System.exit(1);
        }
        System.err.printf(Locale.ROOT, "EmulatedOracle: %s passed in %.0f s: every workload and layer had enough "
                + "stack traces, %.1f%% or more of them right and of their frame types%n", jdk,
                (System.nanoTime() - start) / 1e9, ValidationTest.MIN_MATCH_PERCENT);
    }
}
