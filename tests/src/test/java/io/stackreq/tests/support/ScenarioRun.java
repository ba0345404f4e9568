package io.stackreq.tests.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.stackreq.testapp.Report;
import io.stackreq.testapp.Scenarios;
import jdk.jfr.consumer.RecordedEvent;

/** One run of {@link Scenarios} in a child JVM: its report and its recording. */
public final class ScenarioRun {
    private final String scenario;
    public final Report report;
    public final Path recording;
    public final JvmRun.Result result;

    private ScenarioRun(String scenario, Report report, Path recording, JvmRun.Result result) {
        this.scenario = scenario;
        this.report = report;
        this.recording = recording;
        this.result = result;
    }

    public static ScenarioRun run(Jdk jdk, Path dir, String scenario, String requesterOptions) throws Exception {
        return run(jdk, dir, scenario, requesterOptions, new String[0]);
    }

    /** As {@link #run(Jdk, Path, String, String)}, with these JVM flags. */
    public static ScenarioRun run(Jdk jdk, Path dir, String scenario, String requesterOptions, String... flags)
            throws Exception {
        Path report = dir.resolve(scenario + ".txt");
        Path recording = dir.resolve(scenario + ".jfr");
        JvmRun.Result result = JvmRun.on(jdk, dir).name(scenario).requesterOptions(requesterOptions).flags(flags)
                .main(Scenarios.class, scenario, "out=" + report, "rec=" + recording).run();
        return new ScenarioRun(scenario, Report.read(report), recording, result);
    }

    public int rc(String step) {
        return report.getInt("rc." + step);
    }

    public boolean hasRecording() {
        return Files.isRegularFile(recording);
    }

    public List<RecordedEvent> requests() {
        return JfrFile.requests(recording);
    }

    /**
     * The run's one event, that of request 1, after checking that it was walked, biased and on thread, with
     * {@code Scenarios.method} on its stack.
     */
    public RecordedEvent onlyEventBiasedOn(String thread, String method) {
        List<RecordedEvent> events = requests();
        Accounting.assertEachIdExactlyOnce(new long[] {1}, Accounting.userData(events), scenario);
        RecordedEvent event = events.get(0);
        assertFalse(event.getBoolean("failed"), () -> JfrFile.describe(event));
        assertTrue(event.getBoolean("biased"), () -> JfrFile.describe(event));
        assertEquals(thread, JfrFile.threadName(event), () -> JfrFile.describe(event));
        assertTrue(JfrFile.methods(event).contains(Scenarios.class.getName() + "." + method),
                () -> "stack lacks " + method + ": " + JfrFile.describe(event));
        return event;
    }

    @Override
    public String toString() {
        return "report:\n" + report + result;
    }
}
