package io.stackreq.testapp;

import java.util.ArrayList;
import java.util.List;

/** What a test app's own threads throw, kept for the main thread to rethrow once they have ended. */
public final class ThreadFailures {
    private final List<Throwable> thrown = new ArrayList<>();

    /** Starts a daemon thread that runs body; what body throws is kept here. */
    public Thread start(String name, Steps body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                synchronized (this) {
                    thrown.add(t);
                }
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    public synchronized boolean any() {
        return !thrown.isEmpty();
    }

    /** Throws the first failure kept, if any, as the cause of an IllegalStateException with message. */
    public synchronized void rethrowFirst(String message) {
        if (!thrown.isEmpty()) {
            throw new IllegalStateException(message, thrown.get(0));
        }
    }
}
