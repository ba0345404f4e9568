package io.stackreq.validation;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.stackreq.tests.support.Jdk;
import io.stackreq.validation.oracle.OracleCheck.Layer;
import io.stackreq.validation.oracle.OracleCheck.Tally;
import io.stackreq.validation.oracle.OracleRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 16, acceptance 1: the oracle's layer (c) with libstackreq.so and liboracle.so attached to
 * a JVM that started without them, after its workload threads warmed up (those threads, running
 * before the attach, are the ones sampled). Same bar as {@link ValidationTest} on a few workloads.
 */
@Tag("alone")
class OracleAttachTest {
    // exceptions is left to tests/validate --only oracle --attach: after an attach it had 3 wrong
    // traces in about 4,800 (0.06%, cause not found yet; docs/validation.md), so at the 1,000-2,000
    // traces of a short run two of them cross the 99.9% bar by chance. threads starts and ends
    // threads all the time, so it has many of the refusals counted apart below.
    private static final List<String> WORKLOADS = List.of("recursion", "inlining", "osr");
    private static final double WARMUP_SECONDS = 3;
    private static final double SECONDS = 5;

    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    @Execution(ExecutionMode.CONCURRENT)
    void signalRequestsMatchShadowStacksAfterAnAttach(Jdk jdk) {
        OracleRun.Result result = OracleRun.runAttached(jdk, dir, WORKLOADS, WARMUP_SECONDS, SECONDS);
        System.out.println(OracleTable.markdown(result, SECONDS) + "\n" + OracleTable.examples(result));
        List<Executable> checks = new ArrayList<>();
        for (String workload : result.workloads()) {
            Tally tally = result.tally(Layer.SIGNAL, workload);
            int traces = tally.matched() + tally.mismatched;
            checks.add(() -> assertTrue(traces >= ValidationTest.MIN_SIGNAL_SAMPLES,
                    () -> String.format(Locale.ROOT, "%s %s: only %d stack traces (failed %d); need %d", jdk,
                            workload, traces, tally.failed, ValidationTest.MIN_SIGNAL_SAMPLES)));
            // A refusal here would be a thread that ran before the attach and is not served. Each
            // workload's thread ends when the workload does, and a timer signal already on its way
            // may reach it after its ThreadEnd: that one is refused THREAD_NOT_ALIVE, as documented.
            checks.add(() -> assertEquals(0, tally.refused - tally.refusedThreadEnded,
                    () -> jdk + " " + workload + ": requests refused other than THREAD_NOT_ALIVE; by walk: "
                            + tally.byWalk));
            checks.add(() -> assertTrue(tally.matchPercent() >= ValidationTest.MIN_MATCH_PERCENT,
                    () -> String.format(Locale.ROOT, "%s %s: %.2f%% of %d stack traces match (%d mismatched), "
                            + "need %.1f%%; examples:%n%s", jdk, workload, tally.matchPercent(), traces,
                            tally.mismatched, ValidationTest.MIN_MATCH_PERCENT, String.join("\n", tally.examples))));
            // Code compiled before the attach is typed from the replayed CompiledMethodLoad events.
            checks.add(() -> ValidationTest.assertFrameTypes(jdk, workload, Layer.SIGNAL, tally.frameTypes,
                    ValidationTest.MIN_SIGNAL_SAMPLES));
        }
        assertAll(checks);
    }
}
