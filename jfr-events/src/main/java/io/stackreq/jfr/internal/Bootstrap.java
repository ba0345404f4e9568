package io.stackreq.jfr.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

import io.stackreq.jfr.StackTraceRequestEvent;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * Connects JFR to libstackreq. Started by the agent at VMInit. JFR itself is not initialized
 * here: the event class is registered when JFR starts (a recording, jcmd, or
 * -XX:StartFlightRecording), so a JVM that never records pays nothing.
 *
 * <p>When JFR starts, the chunk hook is installed (see {@link ChunkHookTransformer}): from then on
 * libstackreq writes its events into each chunk file JFR finishes, and recordings need nothing
 * more from this class than the enabled gate. Where the hook cannot be installed, stackreq says
 * so in one line and appends each recording's events to its destination when it stops.
 */
public final class Bootstrap {
    private static final String CHUNK_HOOK_CLASS = "/io/stackreq/jfr/boot/ChunkFinishHook.class";
    private static final String ENABLED_HOOK_CLASS = "/io/stackreq/jfr/boot/EnabledFlagHook.class";
    private static volatile EventType eventType;
    private static volatile boolean continuous;
    /**
     * Destinations of in-memory recordings: when the last recording is in memory, JFR writes it
     * straight to its destination (no chunk file to hook) and forgets the path before it tells
     * the listeners, so the path is noted while the recording runs.
     */
    private static final Map<Long, Path> memoryDestinations = new ConcurrentHashMap<>();
    /** Whether a running recording is in memory: only then does the poll look for destinations. */
    private static volatile boolean memoryRecordingRunning;
    /** What refreshEnabled last told the agent. */
    private static volatile boolean gateOpen;
    /** EventType.isEnabled() at the last poll (the emitter thread's only). */
    private static boolean lastSeenEnabled;

    private Bootstrap() {
    }

    /** Called once by libstackreq.so at VMInit. */
    public static void start() {
        NativeBridge.markRegistered();
        FlightRecorder.addListener(new Listener());
    }

    /**
     * Recomputes whether any running recording enables the event and tells the agent. Called by the
     * recording listener, the settings poll and, at once, from JFR's settings update through
     * {@link io.stackreq.jfr.boot.EnabledFlagHook} (on the thread that changed the settings, with
     * JFR's recorder lock held: only reentrant reads of JFR's state here).
     */
    static void refreshEnabled() {
        EventType type = eventType;
        boolean open = type != null && type.isEnabled() && anyRunningRecordingEnablesEvent();
        gateOpen = open;
        NativeBridge.setEventEnabled(open);
    }

    /** Called by libstackreq's emitter thread before it asks JFR for a new chunk. */
    static boolean diskRecordingRunning() {
        return anyRunning(Recording::isToDisk);
    }

    // EventType.isEnabled() may still be true while a stopping recording is being written out.
    private static boolean anyRunningRecordingEnablesEvent() {
        return FlightRecorder.isInitialized() && anyRunning(Bootstrap::enablesEvent);
    }

    private static boolean noRecordingRunning() {
        return !anyRunning(recording -> true);
    }

    private static boolean anyRunning(Predicate<Recording> test) {
        for (Recording recording : FlightRecorder.getFlightRecorder().getRecordings()) {
            if (recording.getState() == RecordingState.RUNNING && test.test(recording)) {
                return true;
            }
        }
        return false;
    }

    private static boolean enablesEvent(Recording recording) {
        Map<String, String> settings = recording.getSettings();
        return "true".equals(settings.get(StackTraceRequestEvent.NAME + "#enabled"));
    }

    private static void noteMemoryDestinations() {
        for (Recording recording : FlightRecorder.getFlightRecorder().getRecordings()) {
            Path destination = recording.getDestination();
            if (recording.getState() == RecordingState.RUNNING && !recording.isToDisk() && destination != null) {
                memoryDestinations.put(recording.getId(), destination);
            }
        }
    }

    /**
     * JFR applies {@code Recording.enable/disable}, a second recording's settings and
     * {@code jcmd JFR.configure} without telling listeners (and calls a custom setting's
     * {@code setValue} only when its value may change, so {@link ThrottleSetting} cannot carry
     * them either). The enabled-flag hook brings them to the gate at once; where it could not be
     * installed, and for in-memory recordings' destinations, libstackreq's emitter thread reads the
     * event's enabled flag when it wakes,
     * every 100 ms or sooner, and calls this poll only when the flag changed or disagrees with the
     * request gate, or an in-memory recording runs, which brings each change to the request gate
     * without running Java code at every wake-up. Recordings starting and stopping reach the gate
     * through the listener, the throttle through {@link ThrottleSetting}.
     */
    static void pollSettings() {
        try {
            // EventType.isEnabled() allocates nothing: the full check (which copies every
            // recording's settings) runs only when it changes or disagrees with the gate, so
            // that in the steady state the poll allocates nothing in the application's heap,
            // where even garbage shows as RSS growth of an application that allocates little
            // itself. The disagreement matters: a stopping recording keeps isEnabled() true
            // while the listener closes the gate, and a recording enabling the event next
            // leaves isEnabled() unchanged.
            EventType type = eventType;
            boolean enabled = type != null && type.isEnabled();
            if (enabled != lastSeenEnabled || enabled != gateOpen) {
                refreshEnabled();
                lastSeenEnabled = enabled;
            }
            if (continuous && enabled && memoryRecordingRunning) {
                noteMemoryDestinations();
            }
        } catch (RuntimeException e) {
            System.err.println("[stackreq] settings poll: " + e);
        }
    }

    private static boolean installChunkHook(FlightRecorder recorder) {
        String error = installHook(CHUNK_HOOK_CLASS, hookClass -> NativeBridge.installChunkHook(hookClass, recorder));
        if (error != null) {
            System.err.println("[stackreq] continuous recordings unavailable on this JDK (" + error
                    + "): jdk.StackTraceRequest events reach a recording only when it stops");
            return false;
        }
        return true;
    }

    private static void installEnabledFlagHook() {
        String error = installHook(ENABLED_HOOK_CLASS, NativeBridge::installEnabledFlagHook);
        if (error != null) {
            System.err.println("[stackreq] settings changes reach requests within 100 ms on this JDK, not at once ("
                    + error + ")");
        }
    }

    /** Reads a boot hook class from the events jar and hands its bytes to install; null or a reason. */
    private static String installHook(String resource, Function<byte[], String> install) {
        try (InputStream in = Bootstrap.class.getResourceAsStream(resource)) {
            return in == null ? resource + " missing from the events jar" : install.apply(in.readAllBytes());
        } catch (IOException e) {
            return "cannot read " + resource + ": " + e;
        }
    }

    /**
     * JFR calls the listener on the application's thread that started it or changed a recording:
     * whatever fails here is one line, never an exception thrown into that thread.
     */
    private static final class Listener implements FlightRecorderListener {
        @Override
        public void recorderInitialized(FlightRecorder recorder) {
            try {
                initialize(recorder);
            } catch (RuntimeException | LinkageError e) {
                System.err.println("[stackreq] JFR integration failed (" + e + "): jdk.StackTraceRequest events are"
                        + " not recorded");
            }
        }

        @Override
        public void recordingStateChanged(Recording recording) {
            try {
                stateChanged(recording);
            } catch (RuntimeException | LinkageError e) {
                System.err.println("[stackreq] recording " + recording.getId() + " " + recording.getState() + ": " + e);
            }
        }

        private void initialize(FlightRecorder recorder) {
            FlightRecorder.register(StackTraceRequestEvent.class);
            EventType type = EventType.getEventType(StackTraceRequestEvent.class);
            eventType = type;
            NativeBridge.setEventTypeId(type.getId());
            NativeBridge.checkJfrExclusions();
            continuous = installChunkHook(recorder);
            NativeBridge.startSettingsPoll(type);
            installEnabledFlagHook();
            for (Recording recording : recorder.getRecordings()) {
                if (recording.getState() == RecordingState.RUNNING) {
                    stateChanged(recording);
                }
            }
            refreshEnabled();
        }

        private void stateChanged(Recording recording) {
            memoryRecordingRunning = anyRunning(running -> !running.isToDisk());
            NativeBridge.setMemoryRecordingRunning(continuous && memoryRecordingRunning);
            RecordingState state = recording.getState();
            if (state == RecordingState.RUNNING) {
                NativeBridge.recordingSeen();
                if (continuous) {
                    noteMemoryDestinations();
                } else if (enablesEvent(recording)) {
                    NativeBridge.recordingStarted(recording.getId());
                }
            } else if (state == RecordingState.STOPPED || state == RecordingState.CLOSED) {
                // Close the gate first (unless another recording keeps the event on), so every
                // request accepted until now is in the chunk and none is accepted for nobody.
                refreshEnabled();
                String error = continuous ? recordingEnded(recording, state) : appendAtStop(recording, state);
                if (error != null) {
                    System.err.println("[stackreq] " + error);
                }
            }
            refreshEnabled();
        }

        /**
         * Events requested after the last chunk's cut and before the gate closed belong to no
         * chunk; when the last recording stops they go to its destination (written by now, from
         * chunk files or, for an in-memory recording, by the JVM from memory), else nowhere.
         */
        private String recordingEnded(Recording recording, RecordingState state) {
            Path memoryDestination = memoryDestinations.remove(recording.getId());
            if (state != RecordingState.STOPPED || !noRecordingRunning()) {
                return null;
            }
            Path destination = recording.isToDisk() ? recording.getDestination() : memoryDestination;
            return NativeBridge.lastRecordingStopped(destination == null ? null : destination.toString());
        }

        private String appendAtStop(Recording recording, RecordingState state) {
            Path destination = recording.getDestination();
            return NativeBridge.recordingStopped(recording.getId(),
                    state == RecordingState.STOPPED && destination != null ? destination.toString() : null);
        }
    }
}
