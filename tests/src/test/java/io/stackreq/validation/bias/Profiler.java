package io.stackreq.validation.bias;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.validation.Jfc;

/**
 * The profilers the bias benchmark compares, each sampling every thread's CPU time at 1 ms (or as
 * close as its engine gets), and how its recording names its samples.
 */
public enum Profiler {
    /** libstackreq-perf.so, perf task-clock 1 ms, RequestStackTrace with the signal's ucontext. */
    STACKREQ("stackreq", "jdk.StackTraceRequest"),
    /**
     * The same signals with ucontext = NULL and libstackreq's {@code null-ucontext=safepoint}, as the
     * JDK walks such a request: the stack at the call (where the thread is in native code) or at the
     * thread's next safepoint.
     */
    STACKREQ_BIASED("stackreq biased", "jdk.StackTraceRequest"),
    /**
     * STACKREQ with libstackreq's {@code native=on}: the stacks start at the signal's PC, with the
     * JVM's stub or the C function the thread is in on top of the Java frames.
     */
    STACKREQ_NATIVE("stackreq native=on", "jdk.StackTraceRequest"),
    /** JFR's own sampler, jdk.ExecutionSample every 1 ms (Java code only). */
    JFR_EXECUTION_SAMPLE("JFR ExecutionSample", "jdk.ExecutionSample"),
    /** JDK 25: JFR's CPU-time sampler, jdk.CPUTimeSample with throttle 1 ms of CPU time. */
    JFR_CPU_TIME_SAMPLE("JFR CPUTimeSample", "jdk.CPUTimeSample"),
    /** async-profiler 4.2, event=cpu (perf_events cpu-clock here), interval 1 ms, JFR output. */
    ASYNC_PROFILER_CPU("async-profiler cpu", "jdk.ExecutionSample"),
    /** async-profiler 4.2, event=itimer (setitimer ITIMER_PROF), interval 1 ms, JFR output. */
    ASYNC_PROFILER_ITIMER("async-profiler itimer", "jdk.ExecutionSample"),
    /**
     * async-profiler 4.2, event=cpu with {@code cstack=no}: its Java stacks from AsyncGetCallTrace,
     * which takes the top compiled frame's inlined methods from the debug record strictly after the
     * signal's PC (its own walk, the default, takes the record at or after it).
     */
    ASYNC_PROFILER_CPU_ASGCT("async-profiler cpu, cstack=no", "jdk.ExecutionSample"),
    /**
     * stackreq as STACKREQ but without -XX:+DebugNonSafepoints: what a user gets with default
     * flags (async-profiler turns the flag on by itself; stackreq does not).
     */
    STACKREQ_DEFAULT_FLAGS("stackreq, default flags", "jdk.StackTraceRequest");

    /** Given to every run: line-level profiling needs debug information beyond safepoints. */
    public static final List<String> COMMON_FLAGS = List.of("-XX:+UnlockDiagnosticVMOptions",
            "-XX:+DebugNonSafepoints", "-Xmx512m");

    private final String label;
    private final String eventType;

    Profiler(String label, String eventType) {
        this.label = label;
        this.eventType = eventType;
    }

    public String label() {
        return label;
    }

    /** The JFR event type of one sample. */
    public String eventType() {
        return eventType;
    }

    public boolean isStackreq() {
        return eventType.equals("jdk.StackTraceRequest");
    }

    public boolean availableOn(Jdk jdk) {
        return this != JFR_CPU_TIME_SAMPLE || jdk.feature() >= 25;
    }

    /** Adds this profiler's agents and flags to a run writing its recording to {@code recording}. */
    void configure(JvmRun run, Path dir, Path recording, Path samples) {
        List<String> flags = new ArrayList<>();
        switch (this) {
            case STACKREQ, STACKREQ_BIASED, STACKREQ_NATIVE, STACKREQ_DEFAULT_FLAGS -> {
                flags.add("-agentpath:" + perfAgent() + "=event=task-clock,interval=1ms,out=" + samples
                        + (this == STACKREQ_BIASED ? ",biased" : ""));
                flags.add("-XX:StartFlightRecording=filename=" + recording + ",settings="
                        + Jfc.stackTraceRequestOnly(dir));
            }
            case JFR_EXECUTION_SAMPLE -> flags.add("-XX:StartFlightRecording=filename=" + recording + ",settings="
                    + Jfc.write(dir, "execution-sample", Jfc.event("jdk.ExecutionSample", "period", "1 ms")));
            case JFR_CPU_TIME_SAMPLE -> flags.add("-XX:StartFlightRecording=filename=" + recording + ",settings="
                    + Jfc.write(dir, "cpu-time-sample", Jfc.event("jdk.CPUTimeSample", "throttle", "1 ms")));
            case ASYNC_PROFILER_CPU, ASYNC_PROFILER_ITIMER -> flags.add("-agentpath:" + asyncProfiler()
                    + "=start,event=" + (this == ASYNC_PROFILER_CPU ? "cpu" : "itimer") + ",interval=1ms,file="
                    + recording);
            case ASYNC_PROFILER_CPU_ASGCT -> flags.add("-agentpath:" + asyncProfiler()
                    + "=start,event=cpu,cstack=no,interval=1ms,file=" + recording);
            default -> throw new IllegalStateException(name());
        }
        if (this != STACKREQ_DEFAULT_FLAGS) {
            flags.addAll(COMMON_FLAGS);
        } else {
            flags.add("-Xmx512m");
        }
        run.withoutRequester().flags(flags.toArray(new String[0]));
        if (this == STACKREQ_NATIVE) {
            run.stackreqOptions("native=on");
        } else if (this == STACKREQ_BIASED) {
            run.stackreqOptions("null-ucontext=safepoint");
        }
        if (!isStackreq()) {
            run.withoutStackreq();
        }
    }

    static Path perfAgent() {
        return JvmRun.stackreqLibrary().resolveSibling("libstackreq-perf.so").toAbsolutePath();
    }

    public static Path asyncProfiler() {
        String path = System.getProperty("stackreq.async.profiler");
        return path != null ? Path.of(path)
                : Path.of(System.getProperty("stackreq.root", "..")).resolve(
                        "tests/target/async-profiler/linux-x64/libasyncProfiler.so").toAbsolutePath();
    }
}
