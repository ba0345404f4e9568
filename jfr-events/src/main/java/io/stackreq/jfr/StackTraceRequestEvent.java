package io.stackreq.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Experimental;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.SettingDefinition;
import jdk.jfr.StackTrace;

import io.stackreq.jfr.internal.ThrottleSetting;

/**
 * The {@code jdk.StackTraceRequest} event type, registered with JFR so that recordings,
 * {@code .jfc} files and {@code -XX:StartFlightRecording} options control stackreq exactly as
 * they would control the JDK-native event: {@code enabled} and {@code throttle}.
 *
 * <p>Instances are never committed from Java: a Java event's stack trace and thread are always
 * the committing thread's, so the events themselves are written by libstackreq's chunk writer
 * with this type's id and exactly these fields. The field order here is the order of the
 * fields in that chunk's metadata.
 *
 * @since 0.1
 */
@Name(StackTraceRequestEvent.NAME)
@Label("Stack Trace Request")
@Description("Stack trace of a thread at the moment a profiler requested it, free of safepoint bias"
        + " unless biased is true")
@Category({"Java Virtual Machine", "Profiling"})
@Experimental
@Enabled(false)
@StackTrace(true)
public final class StackTraceRequestEvent extends Event {
    /** The event type name, the same as the JDK-native event's. */
    public static final String NAME = "jdk.StackTraceRequest";

    @Label("User Data")
    @Description("Value passed by the requesting agent, used to join the event with its own sample")
    public long userData;

    @Label("Failed")
    @Description("No stack trace could be taken for this request")
    public boolean failed;

    @Label("Biased")
    @Description("The stack trace was taken at the thread's next safepoint rather than at the"
            + " requested instant")
    public boolean biased;

    @Label("Requester")
    @Description("File name of the library that called RequestStackTrace (stackreq's addition to the JDK's"
            + " event)")
    public String requester;

    /**
     * Binds the {@code throttle} setting ({@code off}, {@code N/s}, {@code N/ms}, {@code N/min})
     * to libstackreq's request gate. Works on JDK 17, where no built-in throttle exists for
     * Java events.
     *
     * @param control the setting JFR computed from all running recordings
     * @return always {@code true}: the event is never committed from Java
     */
    @Name("throttle")
    @Label("Throttle")
    @SettingDefinition
    protected boolean throttle(ThrottleSetting control) {
        return true;
    }
}
