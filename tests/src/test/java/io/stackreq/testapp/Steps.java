package io.stackreq.testapp;

/** What a test app's thread or scenario does: code that may throw anything. */
@FunctionalInterface
public interface Steps {
    void run() throws Exception;
}
