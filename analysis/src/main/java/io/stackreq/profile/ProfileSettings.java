package io.stackreq.profile;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How to run one profiled JVM.
 *
 * @param java     the java launcher (null when profiling a running JVM)
 * @param agents   where the two agents are
 * @param sampling what the perf agent samples and how often
 * @param output   directory for recording.jfr, samples.jsonl and the results
 * @param javaArgs the user's JVM options, main class and arguments (empty for a running JVM)
 * @param coverage which frames and threads the agents take beyond Java frames of Java threads
 */
public record ProfileSettings(Path java, AgentDirectory agents, Sampling sampling, Path output,
        List<String> javaArgs, Coverage coverage) {

    /**
     * @param engine   "perf" or "cpu-timer"
     * @param events   leader first, group members after ({@code task-clock+page-faults}); ignored by cpu-timer
     * @param interval sample interval for time events ("1ms"), or null when {@code period} is given
     * @param period   sample period for count events, or null when {@code interval} is given
     */
    public record Sampling(String engine, String events, String interval, Long period) {
    }

    /**
     * @param nativeFrames libstackreq's {@code native=on}: native frames above the Java ones
     * @param allThreads   the perf agent's {@code threads=all}: every thread of the process, the JVM's
     *                     own included, not only the Java threads
     */
    public record Coverage(boolean nativeFrames, boolean allThreads) {
        /** Java frames only ({@code native=off}, libstackreq's default), Java threads only. */
        public static final Coverage JAVA_ONLY = new Coverage(false, false);
    }

    /** Java frames only, Java threads only: {@link Coverage#JAVA_ONLY}. */
    public ProfileSettings(Path java, AgentDirectory agents, Sampling sampling, Path output, List<String> javaArgs) {
        this(java, agents, sampling, output, javaArgs, Coverage.JAVA_ONLY);
    }

    public static final String RECORDING = "recording.jfr";
    public static final String SAMPLES = "samples.jsonl";

    public ProfileSettings {
        javaArgs = List.copyOf(javaArgs);
    }

    public Path recording() {
        return output.resolve(RECORDING);
    }

    public Path samples() {
        return output.resolve(SAMPLES);
    }

    /** libstackreq's options: {@code native=on} or none. */
    public String requestAgentOptions() {
        return coverage.nativeFrames() ? "native=on" : "";
    }

    /** The perf agent's options: events or engine, period or interval, which threads, and the samples file. */
    public String perfAgentOptions() {
        StringBuilder perfOptions = new StringBuilder();
        if ("cpu-timer".equals(sampling.engine())) {
            perfOptions.append("engine=cpu-timer");
        } else {
            perfOptions.append("event=").append(sampling.events());
        }
        if (sampling.period() != null) {
            perfOptions.append(",period=").append(sampling.period());
        } else if (sampling.interval() != null) {
            perfOptions.append(",interval=").append(sampling.interval());
        }
        if (coverage.allThreads()) {
            perfOptions.append(",threads=all");
        }
        perfOptions.append(",out=").append(samples());
        return perfOptions.toString();
    }

    /**
     * {@code java -agentpath:libstackreq.so -agentpath:libstackreq-perf.so=... -XX:StartFlightRecording=...
     * <user args>}: the request agent first, so the perf agent finds the RequestStackTrace extension;
     * the recording takes the JDK's default settings and stackreq.jfc's, which enables the event on
     * every JDK (JDK 11 has no {@code +jdk.StackTraceRequest#enabled=true}).
     */
    public List<String> commandLine() {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        String requestOptions = requestAgentOptions();
        command.add("-agentpath:" + agents.requestAgent() + (requestOptions.isEmpty() ? "" : "=" + requestOptions));
        command.add("-agentpath:" + agents.perfAgent() + "=" + perfAgentOptions());
        command.add("-XX:StartFlightRecording=filename=" + recording() + ",settings=default,settings="
                + agents.eventSettings());
        command.addAll(javaArgs);
        return command;
    }
}
