package io.stackreq.jfr.boot;

/**
 * The call JFR makes, once per finished chunk, into libstackreq. libstackreq defines this class
 * in the boot class loader (so that {@code jdk.jfr.internal.RepositoryChunk}, a boot class, can
 * link to it), registers its native and inserts a call to {@link #finishing} at the start of
 * {@code RepositoryChunk.finish(Instant)} (and to {@link #opened} at the end of its constructors): at that point the JVM has written the chunk file
 * completely and JFR has not yet measured its size, so whatever libstackreq appends to the file
 * travels with the chunk into every dump, copy and stop, and is deleted with it.
 *
 * <p>Not for use by applications.
 */
public final class ChunkFinishHook {
    private ChunkFinishHook() {
    }

    /**
     * Appends stackreq's events of the chunk's time window to the chunk file.
     *
     * @param chunkFile the finished chunk file, as JFR's repository names it
     */
    public static native void finishing(String chunkFile);

    /**
     * Tells libstackreq the file of a new chunk, which the JVM is about to write: until JFR
     * finishes it, libstackreq keeps the events accepted meanwhile in files of its own beside it,
     * so that a JVM that dies first leaves them in the repository. Called at the end of
     * {@code RepositoryChunk}'s constructors.
     *
     * @param chunkFile the new chunk file, as JFR's repository names it
     */
    public static native void opened(String chunkFile);
}
