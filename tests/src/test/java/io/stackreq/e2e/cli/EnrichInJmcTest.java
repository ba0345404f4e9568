package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Tag;
import org.openjdk.jmc.common.IMCFrame;
import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.IMCThread;
import org.openjdk.jmc.common.item.Attribute;
import org.openjdk.jmc.common.item.IAttribute;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.item.ItemFilters;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.common.unit.UnitLookup;
import org.openjdk.jmc.flightrecorder.CouldNotLoadRecordingException;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.stacktrace.FrameSeparator;
import org.openjdk.jmc.flightrecorder.stacktrace.FrameSeparator.FrameCategorization;
import org.openjdk.jmc.flightrecorder.stacktrace.tree.Node;
import org.openjdk.jmc.flightrecorder.stacktrace.tree.StacktraceTreeModel;

/**
 * Issue 3, acceptance 5: {@code stackreq enrich} of a task-clock+page-faults profile writes a
 * recording that JMC core ({@code JfrLoaderToolkit.loadEvents}) loads with one event per matched
 * sample, each with its stack trace, thread and both counters as quantities; the counters add up
 * to the report's totals, and JMC's own stack-trace tree weighted by page faults gives
 * touchFreshMemory the share the report gives it.
 */
@Tag("alone")
class EnrichInJmcTest {
    private static final String EVENT = "stackreq.PerfSample";
    private static final IAttribute<IQuantity> TASK_CLOCK =
            Attribute.attr("taskClock", "task-clock", UnitLookup.TIMESPAN);
    private static final IAttribute<IQuantity> PAGE_FAULTS =
            Attribute.attr("pageFaults", "page-faults", UnitLookup.NUMBER);

    @OnEachJdk
    void enrichedRecordingLoadsInJmcWithStacksAndCounters(Jdk jdk) {
        Profiles.Profiled run = Profiles.pageFaults(jdk);
        Path enriched = run.workDir().resolve("enriched.jfr");
        JvmRun.Result result = JvmRun.cli(Jdk.current(), run.workDir(), List.of("enrich",
                run.file("recording.jfr").toString(), "--samples", run.file("samples.jsonl").toString(), "-o",
                enriched.toString())).name("enrich").timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, result.exitCode(), () -> "enrich failed\n" + result);
        JsonNode byTime = run.report();
        JsonNode byFaults = run.report("--metric", "page-faults", "--top", "0");
        long matched = byTime.path("matched").asLong();
        assertTrue(result.stderr().contains(String.format("(%,d samples, each a jdk.ExecutionSample and a %s event)",
                matched, EVENT)),
                () -> "enrich does not say it wrote " + matched + " events\n" + result);

        for (Path file : List.of(enriched, run.file("profile.jfr"))) {
            IItemCollection samples = load(file).apply(ItemFilters.type(EVENT));
            Totals totals = readAll(samples, file);
            System.out.printf("%s %s: %d %s events in JMC, task-clock %d ns, page-faults %d%n", jdk,
                    file.getFileName(), totals.events, EVENT, totals.taskClockNanos, totals.pageFaults);
            assertEquals(matched, totals.events, () -> file + ": events != matched samples of the report");
            assertEquals(byTime.path("totalWeight").asLong(), totals.taskClockNanos,
                    () -> file + ": taskClock does not add up to the report's task-clock total");
            assertEquals(byFaults.path("totalWeight").asLong(), totals.pageFaults,
                    () -> file + ": pageFaults does not add up to the report's page-faults total");

            // What JMC's flame graph view computes when weighing by the pageFaults field.
            StacktraceTreeModel tree = new StacktraceTreeModel(samples,
                    new FrameSeparator(FrameCategorization.METHOD, false), false, PAGE_FAULTS);
            double all = tree.getRoot().getChildren().stream().mapToDouble(Node::getCumulativeWeight).sum();
            double touch = weightOf(tree.getRoot(), Profiles.TOUCH);
            double reportPct = Profiles.entry(byFaults, Profiles.TOUCH).path("totalPct").asDouble();
            assertEquals(totals.pageFaults, all, 0.5, () -> file + ": JMC's tree total is not the faults' sum");
            assertEquals(reportPct, 100 * touch / all, 0.01,
                    () -> file + ": JMC gives touchFreshMemory another share of the faults than the report");
        }
    }

    private record Totals(long events, long taskClockNanos, long pageFaults) {
    }

    private static Totals readAll(IItemCollection samples, Path file) {
        long events = 0;
        long clock = 0;
        long faults = 0;
        for (IItemIterable items : samples) {
            IMemberAccessor<IMCStackTrace, IItem> stack = JfrAttributes.EVENT_STACKTRACE.getAccessor(items.getType());
            IMemberAccessor<IMCThread, IItem> thread = JfrAttributes.EVENT_THREAD.getAccessor(items.getType());
            IMemberAccessor<IQuantity, IItem> taskClock = TASK_CLOCK.getAccessor(items.getType());
            IMemberAccessor<IQuantity, IItem> pageFaults = PAGE_FAULTS.getAccessor(items.getType());
            assertNotNull(stack, file + ": no stack trace accessor");
            assertNotNull(thread, file + ": no thread accessor");
            assertNotNull(taskClock, file + ": no taskClock timespan field: "
                    + items.getType().getAccessorKeys().keySet());
            assertNotNull(pageFaults, file + ": no pageFaults number field: "
                    + items.getType().getAccessorKeys().keySet());
            for (IItem item : items) {
                events++;
                IMCStackTrace trace = stack.getMember(item);
                assertTrue(trace != null && !trace.getFrames().isEmpty(), file + ": an event without frames");
                IMCFrame top = trace.getFrames().get(0);
                assertTrue(top.getMethod() != null && top.getMethod().getMethodName() != null,
                        file + ": a top frame without a method");
                assertNotNull(thread.getMember(item), file + ": an event without a thread");
                clock += taskClock.getMember(item).clampedLongValueIn(UnitLookup.NANOSECOND);
                faults += pageFaults.getMember(item).longValue();
            }
        }
        return new Totals(events, clock, faults);
    }

    /** Cumulative weight of the nodes of {@code method}, outermost occurrences only. */
    private static double weightOf(Node node, String method) {
        double weight = 0;
        for (Node child : node.getChildren()) {
            var m = child.getFrame().getMethod();
            if ((m.getType().getFullName() + "." + m.getMethodName()).equals(method)) {
                weight += child.getCumulativeWeight();
            } else {
                weight += weightOf(child, method);
            }
        }
        return weight;
    }

    private static IItemCollection load(Path file) {
        try {
            return JfrLoaderToolkit.loadEvents(new File(file.toString()));
        } catch (IOException | CouldNotLoadRecordingException e) {
            throw new AssertionError("JMC cannot load " + file + ": " + e, e);
        }
    }
}
