package io.stackreq.reliability.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * One streaming pass over a recording with {@code jdk.jfr.consumer.RecordingFile}, keeping per
 * userData (ids 1..capacity-1) only the number of events, the failed flag, the event thread's OS
 * id and Java name: a million events fit in a few megabytes. Also keeps the last
 * {@code stackreq.RequestStatistics} event and counts other event types by name.
 */
public final class RequestScan {
    public static final String REQUEST = "jdk.StackTraceRequest";
    public static final String STATISTICS = "stackreq.RequestStatistics";

    private final byte[] events;
    private final boolean[] failed;
    private final long[] osThread;
    private final String[] threadName;
    public long requestEvents;
    public long outOfRange;
    public long withoutThread;
    public long failedEvents;
    /** Events whose top frame is native code (native=on): a library's function or a JVM stub. */
    public long nativeTopEvents;
    public final List<Long> outOfRangeSample = new ArrayList<>();
    public RecordedEvent lastStatistics;
    public final Map<String, Long> otherTypes = new LinkedHashMap<>();
    public final List<RecordedEvent> kept = new ArrayList<>();
    /** Events of threads without a Java name (the JVM's own, native ones) by OS thread name. */
    public final Map<String, Long> internalThreadEvents = new TreeMap<>();
    /** Events of such threads with a frame that is not {@code Native}. */
    public long internalWithJavaFrames;
    /** Events with a stack of native frames only, by thread (Java name, else OS name). */
    public final Map<String, Long> nativeOnlyStacks = new TreeMap<>();

    private RequestScan(int capacity) {
        events = new byte[capacity];
        failed = new boolean[capacity];
        osThread = new long[capacity];
        threadName = new String[capacity];
    }

    /**
     * @param capacity ids below this are tracked; others are counted as out of range
     * @param keepTypes other event types to keep whole in {@link #kept}
     */
    public static RequestScan scan(Path file, int capacity, String... keepTypes) {
        RequestScan scan = new RequestScan(capacity);
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                scan.accept(recording.readEvent(), keepTypes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return scan;
    }

    private static boolean hasNativeCodeOnTop(RecordedEvent event) {
        RecordedStackTrace stack = event.getStackTrace();
        if (stack == null || stack.getFrames().isEmpty()) {
            return false;
        }
        RecordedFrame top = stack.getFrames().get(0);
        String library = top.getMethod() == null || top.getMethod().getType() == null ? ""
                : top.getMethod().getType().getName();
        return top.getType().equals("Native")
                && (library.matches(".+\\.so(\\.[0-9]+)*") || library.equals("jvm-stubs"));
    }

    private void accept(RecordedEvent event, String[] keepTypes) {
        String type = event.getEventType().getName();
        if (type.equals(REQUEST)) {
            requestEvents++;
            long userData = event.getLong("userData");
            RecordedThread thread = event.getThread();
            boolean isFailed = event.getBoolean("failed");
            failedEvents += isFailed ? 1 : 0;
            nativeTopEvents += hasNativeCodeOnTop(event) ? 1 : 0;
            RecordedStackTrace trace = event.getStackTrace();
            if (thread != null && trace != null && !trace.getFrames().isEmpty()
                    && trace.getFrames().stream().allMatch(f -> f.getType().equals("Native"))) {
                nativeOnlyStacks.merge(String.valueOf(thread.getJavaName() != null ? thread.getJavaName()
                        : thread.getOSName()), 1L, Long::sum);
            }
            if (thread == null) {
                withoutThread++;
            } else if (thread.getJavaName() == null) {
                internalThreadEvents.merge(String.valueOf(thread.getOSName()), 1L, Long::sum);
                RecordedStackTrace stack = event.getStackTrace();
                if (stack != null && stack.getFrames().stream().anyMatch(f -> !f.getType().equals("Native"))) {
                    internalWithJavaFrames++;
                }
            }
            if (userData <= 0 || userData >= events.length) {
                outOfRange++;
                if (outOfRangeSample.size() < 20) {
                    outOfRangeSample.add(userData);
                }
                return;
            }
            int id = (int) userData;
            if (events[id] < Byte.MAX_VALUE) {
                events[id]++;
            }
            failed[id] = isFailed;
            osThread[id] = thread == null ? -1 : thread.getOSThreadId();
            threadName[id] = thread == null ? null : thread.getJavaName();
            return;
        }
        if (type.equals(STATISTICS)) {
            if (lastStatistics == null || !event.getStartTime().isBefore(lastStatistics.getStartTime())) {
                lastStatistics = event;
            }
            return;
        }
        otherTypes.merge(type, 1L, Long::sum);
        for (String keep : keepTypes) {
            if (keep.equals(type)) {
                kept.add(event);
            }
        }
    }

    /** Events with this userData. */
    public int events(long id) {
        return events[(int) id];
    }

    public boolean failed(long id) {
        return failed[(int) id];
    }

    public long osThread(long id) {
        return osThread[(int) id];
    }

    public String threadName(long id) {
        return threadName[(int) id];
    }

    public long statistic(String field) {
        if (lastStatistics == null) {
            throw new AssertionError("no " + STATISTICS + " event in the recording");
        }
        return lastStatistics.getLong(field);
    }

    public String describeStatistics() {
        if (lastStatistics == null) {
            return "(no statistics event)";
        }
        StringBuilder text = new StringBuilder();
        lastStatistics.getFields().forEach(f -> text.append(f.getName()).append('=')
                .append(String.valueOf((Object) lastStatistics.getValue(f.getName()))).append(' '));
        return text.toString().trim();
    }
}
