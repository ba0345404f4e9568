package io.stackreq.testapp;

import java.lang.reflect.InvocationTargetException;

/**
 * A {@code jdk.jfr.consumer.RecordingStream} (JDK 14+) reached by reflection, so that the test
 * applications compile for JDK 11 and run there (where a stream, and so a thread JFR excludes,
 * does not exist: {@link #open} then throws).
 */
public final class JfrStream implements AutoCloseable {
    private static final String CLASS = "jdk.jfr.consumer.RecordingStream";
    private final Object stream;

    private JfrStream(Object stream) {
        this.stream = stream;
    }

    /** Whether this JDK has RecordingStream. */
    public static boolean available() {
        try {
            Class.forName(CLASS);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** A new stream; fails on a JDK without RecordingStream. */
    public static JfrStream open() {
        try {
            return new JfrStream(Class.forName(CLASS).getConstructor().newInstance());
        } catch (ReflectiveOperationException e) {
            throw new UnsupportedOperationException(CLASS + " unavailable on JDK "
                    + Runtime.version().feature() + " (JDK 14+)", e);
        }
    }

    public void onFlush(Runnable action) {
        call("onFlush", Runnable.class, action);
    }

    public void startAsync() {
        call("startAsync", null, null);
    }

    @Override
    public void close() {
        call("close", null, null);
    }

    private void call(String method, Class<?> parameter, Object argument) {
        try {
            if (parameter == null) {
                stream.getClass().getMethod(method).invoke(stream);
            } else {
                stream.getClass().getMethod(method, parameter).invoke(stream, argument);
            }
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw new IllegalStateException(cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(CLASS + "." + method, e);
        }
    }
}
