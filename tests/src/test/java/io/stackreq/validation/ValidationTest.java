package io.stackreq.validation;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import io.stackreq.tests.support.Jdk;
import io.stackreq.validation.bias.BiasBenchmark;
import io.stackreq.validation.bias.BiasBenchmark.Cell;
import io.stackreq.validation.bias.BiasWorkloads;
import io.stackreq.validation.bias.Profiler;
import io.stackreq.validation.oracle.FrameTypeCheck;
import io.stackreq.validation.oracle.OracleCheck.Layer;
import io.stackreq.validation.oracle.OracleCheck.Tally;
import io.stackreq.validation.oracle.OracleMain;
import io.stackreq.validation.oracle.OracleRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 4 in CI: the short version of {@code tests/validate} (durations {@link Durations#CI},
 * {@link Durations#FULL} with {@code -Dstackreq.validate.full=true}). Prints the tables and
 * appends them to {@code target/validation-ci-tables.md}. Two of its runs go at a time (tests/pom.xml:
 * each workload runs on one thread, so two JVMs keep two cores busy).
 */
@Tag("alone")
class ValidationTest {
    /** Oracle: of the stack traces each layer returned, at least this share must be right. */
    static final double MIN_MATCH_PERCENT = 99.9;
    /** Bias: stackreq's error (points) may exceed async-profiler's by at most this ... */
    static final double MAX_EXCESS_OVER_ASYNC_PROFILER = 1;
    /**
     * ... on chase, this: its memory stalls make the CPU between two samples uneven, and both
     * profilers land 0 to 1.4 points under its truth from run to run (JDK 17, nothing else
     * running, five runs: stackreq -0.2 to -0.9, async-profiler -0.0 to -0.8; in a loaded CI run
     * stackreq -1.4 beside async-profiler's +0.1).
     */
    static final double MAX_EXCESS_ON_CHASE = 2;
    /** ... and be at most this in absolute terms. */
    static final double MAX_ERROR = 3;
    /** Bias: "visibly worse" = the biased mode misses the arraycopy truth by this many more points. */
    static final double MIN_BIASED_EXCESS = 10;
    /**
     * Bias, native=on: of the hot samples at least this share must have the native code the hot
     * line's time is in on top (measured: 99.4-100% on JDK 17 and 25; the rest are the Java frame
     * of the call, signals between two copies or before the call).
     */
    static final double MIN_NATIVE_TOP_PERCENT = 90;
    /** The C function the jni workload burns its hot time in, as native=on names it. */
    static final String BIAS_JNI_FUNCTION = "Java_io_stackreq_validation_bias_BiasWorkloads_nativeBurn [libbiasjni.so]";
    /** Below this many samples a share or a match rate says nothing: the check itself fails. */
    static final int MIN_SIGNAL_SAMPLES = 200;
    static final int MIN_BIAS_SAMPLES = 500;

    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#everySupported")
    @Execution(ExecutionMode.CONCURRENT)
    void oracleStackTracesMatchShadowStacks(Jdk jdk) throws IOException {
        Durations durations = Durations.fromSystemProperties();
        OracleRun.Result result = OracleRun.run(jdk, dir, OracleMain.WORKLOADS, durations.oracleSeconds());
        String table = OracleTable.markdown(result, durations.oracleSeconds());
        report(table + "\n" + OracleTable.examples(result));
        assertAll(oracleChecks(jdk, result));
    }

    /**
     * The oracle's assertions on one JDK's result: per workload and layer enough stack traces, at
     * least MIN_MATCH_PERCENT of them right, and frame types (layers (b) and (c)). Also what
     * {@link EmulatedOracle} asks of an emulated JDK's run.
     */
    static List<Executable> oracleChecks(Jdk jdk, OracleRun.Result result) {
        List<Executable> checks = new ArrayList<>();
        for (String workload : result.workloads()) {
            for (Layer layer : Layer.values()) {
                Tally tally = result.tally(layer, workload);
                int minimum = layer == Layer.SIGNAL ? MIN_SIGNAL_SAMPLES : 1;
                checks.add(() -> assertTrue(tally.matched() + tally.mismatched >= minimum,
                        () -> String.format(Locale.ROOT, "%s %s [%s]: only %d stack traces (failed %d); need %d",
                                jdk, workload, layer.label, tally.matched() + tally.mismatched,
                                tally.failed, minimum)));
                checks.add(() -> assertTrue(tally.matchPercent() >= MIN_MATCH_PERCENT,
                        () -> String.format(Locale.ROOT, "%s %s [%s]: %.2f%% of %d stack traces match (%d mismatched), "
                                + "need %.1f%%; examples:%n%s", jdk, workload, layer.label, tally.matchPercent(),
                                tally.matched() + tally.mismatched, tally.mismatched, MIN_MATCH_PERCENT,
                                String.join("\n", tally.examples))));
                if (layer != Layer.JVMTI) {
                    checks.add(() -> assertFrameTypes(jdk, workload, layer, tally.frameTypes,
                            layer == Layer.SIGNAL ? MIN_SIGNAL_SAMPLES : 1));
                }
            }
        }
        return checks;
    }

    /** At least minimum frames with a known type, and of those at least MIN_MATCH_PERCENT typed right. */
    static void assertFrameTypes(Jdk jdk, String workload, Layer layer, FrameTypeCheck.Tally types, int minimum) {
        assertTrue(types.checked >= minimum && types.rightPercent() >= MIN_MATCH_PERCENT,
                () -> String.format(Locale.ROOT,
                        "%s %s [%s]: frame types %s, need %.1f%% of at least %d; examples:%n%s",
                        jdk, workload, layer.label, types.summary(), MIN_MATCH_PERCENT, minimum,
                        String.join("\n", types.examples)));
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    @Execution(ExecutionMode.CONCURRENT)
    void stackreqIsAsCloseToTheTruthAsAsyncProfilerAndBiasedModeIsNot(Jdk jdk) throws IOException {
        Durations durations = Durations.fromSystemProperties();
        BiasBenchmark.Result result = BiasBenchmark.run(jdk, dir, BiasBenchmark.ciPlan(), durations.biasSeconds());
        report(BiasTable.markdown(result, durations.biasSeconds()) + "\n" + BiasTable.details(result));
        List<Executable> checks = new ArrayList<>();
        for (String workload : BiasWorkloads.ALL) {
            Cell stackreq = result.cell(Profiler.STACKREQ, workload);
            Cell asyncProfiler = result.cell(Profiler.ASYNC_PROFILER_CPU, workload);
            checks.add(() -> assertTrue(
                    stackreq.samples() >= MIN_BIAS_SAMPLES && asyncProfiler.samples() >= MIN_BIAS_SAMPLES,
                    () -> jdk + " " + workload + ": too few samples (stackreq " + stackreq.samples()
                            + ", async-profiler " + asyncProfiler.samples() + ")"));
            double excess = workload.equals("chase") ? MAX_EXCESS_ON_CHASE : MAX_EXCESS_OVER_ASYNC_PROFILER;
            checks.add(() -> assertTrue(Math.abs(stackreq.error()) <= Math.abs(asyncProfiler.error())
                    + excess, () -> String.format(Locale.ROOT,
                    "%s %s: stackreq misses the truth by %.1f points, async-profiler by %.1f (allowed: +%.0f)%n"
                            + "  stackreq:       truth %.1f%%, %s%n  async-profiler: truth %.1f%%, %s", jdk, workload,
                    stackreq.error(), asyncProfiler.error(), excess, stackreq.truth().percent(),
                    stackreq.topPlaces(5), asyncProfiler.truth().percent(), asyncProfiler.topPlaces(5))));
            checks.add(() -> assertTrue(Math.abs(stackreq.error()) <= MAX_ERROR, () -> String.format(Locale.ROOT,
                    "%s %s: stackreq misses the truth (%.1f%%) by %.1f points (allowed: %.0f); samples went to %s", jdk,
                    workload, stackreq.truth().percent(), stackreq.error(), MAX_ERROR, stackreq.topPlaces(5))));
        }
        Cell unbiased = result.cell(Profiler.STACKREQ, "arraycopy");
        Cell biased = result.cell(Profiler.STACKREQ_BIASED, "arraycopy");
        checks.add(() -> assertTrue(biased.samples() >= MIN_BIAS_SAMPLES
                && Math.abs(biased.error()) >= Math.abs(unbiased.error()) + MIN_BIASED_EXCESS,
                () -> String.format(Locale.ROOT, "%s arraycopy: the biased mode should miss the truth by at least %.0f "
                        + "points more than the unbiased one: biased %.1f (%d samples), unbiased %.1f", jdk,
                        MIN_BIASED_EXCESS, biased.error(), biased.samples(), unbiased.error())));
        checks.add(() -> assertNativeOnTop(jdk, result.cell(Profiler.STACKREQ_NATIVE, "arraycopy"),
                "the JVM's arraycopy stub", top -> top.endsWith(" [" + BiasBenchmark.JVM_STUBS + "]")
                        && top.contains("arraycopy")));
        checks.add(() -> assertNativeOnTop(jdk, result.cell(Profiler.STACKREQ_NATIVE, "jni"), BIAS_JNI_FUNCTION,
                BIAS_JNI_FUNCTION::equals));
        assertAll(checks);
    }

    /**
     * Issue 13, acceptance 5: with native=on the hot line's samples have the native code its time
     * is spent in on top (the frames below still place them on the hot line: the error stays
     * within MAX_ERROR).
     */
    static void assertNativeOnTop(Jdk jdk, Cell cell, String expected, Predicate<String> isExpected) {
        String workload = cell.truth().workload();
        assertTrue(cell.samples() >= MIN_BIAS_SAMPLES && Math.abs(cell.error()) <= MAX_ERROR,
                () -> String.format(Locale.ROOT, "%s %s, native=on: %d samples, %.1f%% on the hot line against a "
                        + "truth of %.1f%% (need %d samples, within %.0f points); samples went to %s", jdk, workload,
                        cell.samples(), cell.share(), cell.truth().percent(), MIN_BIAS_SAMPLES, MAX_ERROR,
                        cell.topPlaces(5)));
        assertTrue(cell.hotTopPercent(isExpected) >= MIN_NATIVE_TOP_PERCENT,
                () -> String.format(Locale.ROOT, "%s %s, native=on: %.1f%% of the %d hot samples have %s on top, "
                        + "need %.0f%%; their top frames: %s", jdk, workload, cell.hotTopPercent(isExpected),
                        cell.hot(), expected, MIN_NATIVE_TOP_PERCENT, cell.hotTops()));
    }

    private static synchronized void report(String text) throws IOException {
        System.out.println(text);
        Path file = Path.of(System.getProperty("stackreq.root", "..")).resolve("tests/target/validation-ci-tables.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, text + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
