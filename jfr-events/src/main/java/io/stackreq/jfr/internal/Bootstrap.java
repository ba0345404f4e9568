package io.stackreq.jfr.internal;

import java.nio.file.Path;
import java.util.Map;

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
 */
public final class Bootstrap {
    private static volatile boolean started;
    private static volatile EventType eventType;

    private Bootstrap() {
    }

    /** Called once by libstackreq.so at VMInit. */
    public static void start() {
        started = true;
        FlightRecorder.addListener(new Listener());
    }

    static boolean isStarted() {
        return started;
    }

    /** Recomputes whether any running recording enables the event and tells the agent. */
    static void refreshEnabled() {
        EventType type = eventType;
        NativeBridge.setEventEnabled(type != null && type.isEnabled() && anyRunningRecordingEnablesEvent());
    }

    // EventType.isEnabled() may still be true while a stopping recording is being written out.
    private static boolean anyRunningRecordingEnablesEvent() {
        if (!FlightRecorder.isInitialized()) {
            return false;
        }
        for (Recording recording : FlightRecorder.getFlightRecorder().getRecordings()) {
            if (recording.getState() == RecordingState.RUNNING && enablesEvent(recording)) {
                return true;
            }
        }
        return false;
    }

    private static boolean enablesEvent(Recording recording) {
        Map<String, String> settings = recording.getSettings();
        return "true".equals(settings.get(StackTraceRequestEvent.NAME + "#enabled"));
    }

    private static final class Listener implements FlightRecorderListener {
        @Override
        public void recorderInitialized(FlightRecorder recorder) {
            FlightRecorder.register(StackTraceRequestEvent.class);
            EventType type = EventType.getEventType(StackTraceRequestEvent.class);
            eventType = type;
            NativeBridge.setEventTypeId(type.getId());
            for (Recording recording : recorder.getRecordings()) {
                if (recording.getState() == RecordingState.RUNNING) {
                    recordingStateChanged(recording);
                }
            }
            refreshEnabled();
        }

        @Override
        public void recordingStateChanged(Recording recording) {
            RecordingState state = recording.getState();
            if (state == RecordingState.RUNNING) {
                NativeBridge.recordingSeen();
                if (enablesEvent(recording)) {
                    NativeBridge.recordingStarted(recording.getId());
                }
            } else if (state == RecordingState.STOPPED || state == RecordingState.CLOSED) {
                // Close the gate first (unless another recording keeps the event on), so every
                // request accepted until now is in the chunk and none is accepted for nobody.
                refreshEnabled();
                Path destination = recording.getDestination();
                String error = NativeBridge.recordingStopped(recording.getId(),
                        state == RecordingState.STOPPED && destination != null ? destination.toString() : null);
                if (error != null) {
                    System.err.println("[stackreq] " + error);
                }
            }
            refreshEnabled();
        }
    }
}
