package io.stackreq.tests.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.stackreq.testapp.Report;
import io.stackreq.testapp.Scenarios;
import jdk.jfr.consumer.RecordedEvent;

/** One run of {@link Scenarios} in a child JVM: its report and its recording. */
public final class ScenarioRun {
    public final Report report;
    public final Path recording;
    public final JvmRun.Result result;

    private ScenarioRun(Report report, Path recording, JvmRun.Result result) {
        this.report = report;
        this.recording = recording;
        this.result = result;
    }

    public static ScenarioRun run(Jdk jdk, Path dir, String scenario, String requesterOptions) throws Exception {
        Path report = dir.resolve(scenario + ".txt");
        Path recording = dir.resolve(scenario + ".jfr");
        JvmRun.Result result = JvmRun.on(jdk, dir).name(scenario).requesterOptions(requesterOptions)
                .main(Scenarios.class, scenario, "out=" + report, "rec=" + recording).run();
        return new ScenarioRun(Report.read(report), recording, result);
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

    @Override
    public String toString() {
        return "report:\n" + report + result;
    }
}
