package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Tag;
import org.openjdk.jmc.common.IMCFrame;
import org.openjdk.jmc.common.IMCMethod;
import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.util.IPreferenceValueProvider;
import org.openjdk.jmc.common.util.LabeledIdentifier;
import org.openjdk.jmc.flightrecorder.CouldNotLoadRecordingException;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.jdk.JdkAttributes;
import org.openjdk.jmc.flightrecorder.jdk.JdkFilters;
import org.openjdk.jmc.flightrecorder.rules.IResult;
import org.openjdk.jmc.flightrecorder.rules.IRule;
import org.openjdk.jmc.flightrecorder.rules.RuleRegistry;
import org.openjdk.jmc.flightrecorder.rules.Severity;
import org.openjdk.jmc.flightrecorder.rules.util.RulesToolkit;

/**
 * The unbiased profile where users look, on one {@code profile --native} run of BiasTrap per JDK
 * (the one {@link ProfileNativeFramesTest} checks): {@code profile.jfr} gives every method the
 * share {@code report --metric samples} gives it (within 0.1 point) in {@code jfr view
 * hot-methods} (JDK 21+), in JMC core's execution samples and in async-profiler's converter
 * (4.2 and 4.5, their default mode), each sample counted once; {@code recording-unbiased.jfr} keeps every
 * other event of the recording and holds stackreq's samples as its execution samples, read by
 * JMC core (every rule of its automated analysis finds its data) and the profiled JDK's
 * {@code jfr}; the report's JFR columns are the JVM's own samples' shares as JMC core counts them.
 */
@Tag("alone")
class UnbiasedProfileInReadersTest {
    private static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";
    private static final Set<String> REPLACED = Set.of(EXECUTION_SAMPLE, "jdk.CPUTimeSample", "jdk.ActiveSetting");
    /** Rows of at least this share (of the samples) are compared in every reader. */
    private static final double SHOWN_PCT = 0.5;
    private static final double TOLERANCE_POINTS = 0.1;
    private static final Pattern NATIVE_NAME = Pattern.compile("(.+) \\[(.+)\\]");
    private static final Pattern UNSYMBOLIZED = Pattern.compile("\\[(.+)\\+0x[0-9a-f]+\\]");
    private static final List<String> CONVERTERS = List.of("4.2", "4.5");
    private static final Pattern HOT_METHOD_ROW = Pattern.compile("^(\\S.*?)\\s+([\\d,]+)\\s+([\\d.]+)%$");

    @OnEachJdk
    void profileJfrGivesEveryMethodTheReportsShareInEveryReader(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.biasTrapWithNativeFrames(jdk);
        JsonNode report = run.report("--metric", "samples", "--top", "0");
        long matched = report.path("matched").asLong();
        Map<String, Double> expected = new LinkedHashMap<>();
        for (JsonNode entry : report.path("entries")) {
            if (entry.path("selfPct").asDouble() >= SHOWN_PCT) {
                expected.put(readerName(entry.path("name").asText()), entry.path("selfPct").asDouble());
            }
        }
        assertTrue(expected.containsKey(Profiles.BIAS_TRAP + ".countedLoop"), () -> "rows: " + expected);

        Path profile = run.file("profile.jfr");
        Map<String, Long> jmc = jmcTopFrames(profile);
        Map<String, Double> hotMethods = hotMethods(run, profile);
        assertEquals(matched, sum(jmc), "JMC counts every matched sample once");
        Map<String, Map<String, Long>> converters = new LinkedHashMap<>();
        for (String version : CONVERTERS) {
            Map<String, Long> converter = converterTopFrames(run, version, profile);
            assertEquals(matched, sum(converter), "async-profiler's converter " + version + " counts every sample once");
            converters.put(version, converter);
        }
        for (Map.Entry<String, Double> row : expected.entrySet()) {
            String method = row.getKey();
            double share = row.getValue();
            double inJmc = 100.0 * jmc.getOrDefault(method, 0L) / matched;
            Double inView = hotMethods.get(method);
            StringBuilder line = new StringBuilder(String.format("%s profile.jfr %-55s report %6.2f%%  jfr view %s  "
                    + "JMC %6.2f%%", jdk, method, share, inView == null ? "-" : String.format("%6.2f%%", inView), inJmc));
            assertEquals(share, inJmc, TOLERANCE_POINTS, () -> method + " in JMC core\n" + jmc);
            assertTrue(inView != null, () -> method + " is not in jfr view hot-methods: " + hotMethods);
            assertEquals(share, inView, TOLERANCE_POINTS, () -> method + " in jfr view hot-methods\n" + hotMethods);
            for (Map.Entry<String, Map<String, Long>> converter : converters.entrySet()) {
                double inConverter = 100.0 * converter.getValue().getOrDefault(method, 0L) / matched;
                line.append(String.format("  converter %s %6.2f%%", converter.getKey(), inConverter));
                assertEquals(share, inConverter, TOLERANCE_POINTS,
                        () -> method + " in the converter " + converter.getKey() + "\n" + converter.getValue());
            }
            System.out.println(line);
        }
    }

    @OnEachJdk
    void recordingUnbiasedKeepsEveryOtherEventAndHoldsStackreqsSamples(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.biasTrapWithNativeFrames(jdk);
        long matched = run.report().path("matched").asLong();
        Path recording = run.file("recording.jfr");
        Path unbiased = run.file("recording-unbiased.jfr");
        IItemCollection before = load(recording);
        IItemCollection after = load(unbiased);
        Map<String, Long> countsBefore = countByType(before);
        Map<String, Long> countsAfter = countByType(after);
        assertTrue(countsBefore.getOrDefault(EXECUTION_SAMPLE, 0L) > 0, "the JVM sampled: " + countsBefore);
        assertEquals(matched, countsAfter.get(EXECUTION_SAMPLE), "its execution samples are stackreq's");
        assertEquals(0, countsAfter.getOrDefault("jdk.CPUTimeSample", 0L));
        long samplerSettings = samplerSettings(before);
        assertEquals(countsBefore.get("jdk.ActiveSetting") - samplerSettings + 2, countsAfter.get("jdk.ActiveSetting"),
                "the JVM's settings of its sampler are replaced by stackreq's two (enabled, period)");
        Map<String, Long> othersBefore = new TreeMap<>(countsBefore);
        Map<String, Long> othersAfter = new TreeMap<>(countsAfter);
        othersBefore.keySet().removeAll(REPLACED);
        othersAfter.keySet().removeAll(REPLACED);
        assertEquals(othersBefore, othersAfter, "every other event, type by type");
        assertEquals(jmcTopFrames(run.file("profile.jfr")), jmcTopFrames(unbiased),
                "the execution samples are profile.jfr's");

        JvmRun.Result summary = jfr(run, jdk, "summary", unbiased.toString());
        assertTrue(summary.stdout().lines().anyMatch(line -> line.matches("\\s*" + EXECUTION_SAMPLE + "\\s+"
                + matched + "\\s+\\d+\\s*")), () -> "jfr summary counts the samples\n" + summary.stdout());
        JvmRun.Result print = jfr(run, jdk, "print", "--events", EXECUTION_SAMPLE, unbiased.toString());
        long printed = print.stdout().lines().filter(line -> line.equals(EXECUTION_SAMPLE + " {")).count();
        assertEquals(matched, printed, "jfr print prints every sample");
        assertEquals(hotMethods(run, run.file("profile.jfr")), hotMethods(run, unbiased),
                "jfr view hot-methods shows what it shows of profile.jfr");
    }

    /**
     * JMC's automated analysis (every rule its desktop runs) on recording-unbiased.jfr: no rule
     * fails, and every rule that has data in recording.jfr has data there too; its Method Profiling
     * rule reads stackreq's samples and their period.
     */
    @OnEachJdk
    void jmcsAutomatedAnalysisFindsEveryPagesDataInRecordingUnbiased(Jdk jdk) throws Exception {
        Profiles.Profiled run = Profiles.biasTrapWithNativeFrames(jdk);
        Map<String, IResult> before = rules(load(run.file("recording.jfr")));
        Map<String, IResult> after = rules(load(run.file("recording-unbiased.jfr")));
        assertEquals(before.keySet(), after.keySet());
        for (Map.Entry<String, IResult> rule : after.entrySet()) {
            Severity was = before.get(rule.getKey()).getSeverity();
            Severity is = rule.getValue().getSeverity();
            if (was != is) {
                System.out.printf("%s JMC rule %s: %s in recording.jfr, %s in recording-unbiased.jfr (%s)%n", jdk,
                        rule.getKey(), was, is, rule.getValue().getSummary());
            }
            assertTrue(was == Severity.NA || is != Severity.NA,
                    () -> rule.getKey() + " has no data in recording-unbiased.jfr: " + rule.getValue().getSummary());
        }
        assertTrue(after.get("MethodProfiling").getSeverity() != Severity.NA,
                () -> "JMC's Method Profiling rule: " + after.get("MethodProfiling").getSummary());
    }

    /** Every rule of JMC's automated analysis, by id, evaluated as JMC does (each must finish). */
    private static Map<String, IResult> rules(IItemCollection events) throws Exception {
        Map<String, IResult> results = new TreeMap<>();
        for (Map.Entry<IRule, Future<IResult>> rule : RulesToolkit.evaluateParallel(RuleRegistry.getRules(), events,
                IPreferenceValueProvider.DEFAULT_VALUES, 2).entrySet()) {
            try {
                results.put(rule.getKey().getId(), rule.getValue().get(120, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                throw new AssertionError("JMC's rule " + rule.getKey().getId() + " failed: " + e.getCause(), e);
            }
        }
        return results;
    }

    @OnEachJdk
    void theReportsJfrColumnsAreTheJvmsOwnSamplesShares(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.biasTrapWithNativeFrames(jdk);
        JsonNode report = run.report();
        Path recording = run.file("recording.jfr");
        Map<String, long[]> jvm = jmcSelfAndTotal(load(recording).apply(JdkFilters.EXECUTION_SAMPLE));
        long jvmSamples = jvm.remove("")[0];
        assertTrue(jvmSamples > 0, "the JVM sampled");
        assertEquals(jvmSamples, report.path("jfrSamples").path(EXECUTION_SAMPLE).asLong(), report.toString());
        for (JsonNode entry : report.path("entries")) {
            String method = readerName(entry.path("name").asText());
            long[] counts = jvm.getOrDefault(method, new long[2]);
            JsonNode shares = entry.path("jfr").path(EXECUTION_SAMPLE);
            assertEquals(100.0 * counts[0] / jvmSamples, shares.path("selfPct").asDouble(-1), 0.001, method);
            assertEquals(100.0 * counts[1] / jvmSamples, shares.path("totalPct").asDouble(-1), 0.001, method);
        }
        System.out.printf("%s report: %d jdk.ExecutionSample; countedLoop JFR self %.1f%%, stackreq self %.1f%%%n",
                jdk, jvmSamples, Profiles.entry(report, Profiles.BIAS_TRAP + ".countedLoop").path("jfr")
                        .path(EXECUTION_SAMPLE).path("selfPct").asDouble(),
                Profiles.entry(report, Profiles.BIAS_TRAP + ".countedLoop").path("selfPct").asDouble());
        String text = Files.readString(run.file("report.txt"));
        assertTrue(text.contains("JFR        " + String.format("%,d", jvmSamples) + " " + EXECUTION_SAMPLE)
                && text.contains("JFR self% JFR total%  method"), text);
    }

    /** A report row's name as the readers spell the method: native code as {@code library.function}. */
    private static String readerName(String reportName) {
        Matcher nativeCode = NATIVE_NAME.matcher(reportName);
        if (nativeCode.matches()) {
            return nativeCode.group(2) + "." + nativeCode.group(1);
        }
        Matcher unsymbolized = UNSYMBOLIZED.matcher(reportName);
        return unsymbolized.matches() ? unsymbolized.group(1) + "." + reportName : reportName;
    }

    private static Map<String, Long> jmcTopFrames(Path file) {
        Map<String, Long> tops = new TreeMap<>();
        jmcSelfAndTotal(load(file).apply(JdkFilters.EXECUTION_SAMPLE)).forEach((method, counts) -> {
            if (!method.isEmpty() && counts[0] > 0) {
                tops.put(method, counts[0]);
            }
        });
        return tops;
    }

    /** Per method: samples with it on top, and with it anywhere; under "" the number of samples. */
    private static Map<String, long[]> jmcSelfAndTotal(IItemCollection samples) {
        Map<String, long[]> counts = new TreeMap<>();
        long all = 0;
        for (IItemIterable items : samples) {
            IMemberAccessor<IMCStackTrace, IItem> stack = JfrAttributes.EVENT_STACKTRACE.getAccessor(items.getType());
            for (IItem item : items) {
                all++;
                List<? extends IMCFrame> frames = stack.getMember(item).getFrames();
                counts.computeIfAbsent(name(frames.get(0).getMethod()), method -> new long[2])[0]++;
                Set<String> onStack = new HashSet<>();
                for (IMCFrame frame : frames) {
                    if (onStack.add(name(frame.getMethod()))) {
                        counts.computeIfAbsent(name(frame.getMethod()), method -> new long[2])[1]++;
                    }
                }
            }
        }
        counts.put("", new long[] {all, all});
        return counts;
    }

    private static String name(IMCMethod method) {
        return method.getType().getFullName() + "." + method.getMethodName();
    }

    /** The top frames of {@code jfrconv -o collapsed FILE} of that version, as async-profiler's users run it. */
    private static Map<String, Long> converterTopFrames(Profiles.Profiled run, String version, Path file)
            throws IOException {
        Path collapsed = run.workDir().resolve(file.getFileName() + "-" + version + ".collapsed");
        Path jar = Path.of(System.getProperty("stackreq.jfr.converter.dir"), "jfr-converter-" + version + ".jar");
        JvmRun.Result result = JvmRun.command(Jdk.current(), run.workDir(), List.of(Jdk.current().java().toString(),
                "-jar", jar.toString(), "-o", "collapsed", file.toString(), collapsed.toString()))
                .name("jfrconv-" + version).timeout(Duration.ofSeconds(60)).start();
        assertEquals(0, result.exitCode(), () -> "the converter failed\n" + result);
        Map<String, Long> tops = new TreeMap<>();
        for (String line : Files.readAllLines(collapsed)) {
            int space = line.lastIndexOf(' ');
            String stack = line.substring(0, space);
            String top = stack.substring(stack.lastIndexOf(';') + 1).replaceAll("_\\[.\\]$", "").replace('/', '.');
            tops.merge(top, Long.parseLong(line.substring(space + 1)), Long::sum);
        }
        return tops;
    }

    /** {@code jfr view hot-methods} of a JDK 21 or later: share by method (parameters left out). */
    private static Map<String, Double> hotMethods(Profiles.Profiled run, Path file) {
        Jdk viewer = Jdk.all().filter(jdk -> jdk.feature() >= 21).reduce((a, b) -> b.feature() >= a.feature() ? b : a)
                .orElseThrow(() -> new AssertionError("jfr view needs JDK 21 or later among stackreq.jdks"));
        JvmRun.Result view = jfr(run, viewer, "view", "--width", "400", "hot-methods", file.toString());
        Map<String, Double> shares = new LinkedHashMap<>();
        boolean rows = false;
        for (String line : view.stdout().lines().toList()) {
            if (line.startsWith("---")) {
                rows = true;
                continue;
            }
            Matcher row = HOT_METHOD_ROW.matcher(line.trim());
            if (rows && row.matches()) {
                String method = row.group(1);
                // The parameter list is the last parentheses: a stub's name may have its own
                // (JDK 27's "jint_disjoint_arraycopy_stub (stub gen)()").
                int parameters = method.endsWith(")") ? method.lastIndexOf('(') : -1;
                shares.merge(parameters < 0 ? method : method.substring(0, parameters),
                        Double.parseDouble(row.group(3)), Double::sum);
            }
        }
        assertTrue(!shares.isEmpty(), () -> "no rows in jfr view hot-methods\n" + view);
        return shares;
    }

    private static JvmRun.Result jfr(Profiles.Profiled run, Jdk jdk, String... arguments) {
        List<String> command = new ArrayList<>(List.of(jdk.tool("jfr").toString()));
        command.addAll(List.of(arguments));
        JvmRun.Result result = JvmRun.command(jdk, run.workDir(), command).name("jfr-" + arguments[0])
                .timeout(Duration.ofSeconds(90)).start();
        assertEquals(0, result.exitCode(), () -> jdk + " jfr " + String.join(" ", arguments) + " failed\n" + result);
        return result;
    }

    /** The JVM's jdk.ActiveSetting events of its CPU samplers. */
    private static long samplerSettings(IItemCollection events) {
        long count = 0;
        for (IItemIterable items : events.apply(JdkFilters.RECORDING_SETTING)) {
            IMemberAccessor<LabeledIdentifier, IItem> of = JdkAttributes.REC_SETTING_FOR.getAccessor(items.getType());
            for (IItem item : items) {
                String type = of.getMember(item).getInterfaceId();
                if (type.equals(EXECUTION_SAMPLE) || type.equals("jdk.CPUTimeSample")) {
                    count++;
                }
            }
        }
        return count;
    }

    private static Map<String, Long> countByType(IItemCollection events) {
        Map<String, Long> counts = new TreeMap<>();
        for (IItemIterable items : events) {
            counts.merge(items.getType().getIdentifier(), items.getItemCount(), Long::sum);
        }
        counts.values().removeIf(count -> count == 0);
        return counts;
    }

    private static long sum(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    private static IItemCollection load(Path file) {
        try {
            return JfrLoaderToolkit.loadEvents(new File(file.toString()));
        } catch (IOException | CouldNotLoadRecordingException e) {
            throw new AssertionError("JMC cannot load " + file + ": " + e, e);
        }
    }
}
