package io.stackreq.jfr.boot;

/**
 * The frame from which libstackreq binds its stand-ins for JFR's thread exclusion natives
 * ({@code jdk.jfr.internal.JVM.exclude/include}) after an attach. The JVM warns on standard output
 * when a native method of a platform class is bound again by code of another class loader, or by
 * native code with no Java caller (an agent's attach thread); libstackreq defines this class in
 * the boot class loader, the loader of {@code jdk.jfr.internal.JVM}, and binds from inside
 * {@link #bind()}, so the application's output stays clean.
 *
 * <p>Not for use by applications.
 */
public final class ExclusionRebinder {
    private ExclusionRebinder() {
    }

    /** Binds the stand-ins; the Java caller of {@link #bind()} is this boot class too. */
    public static void run() {
        bind();
    }

    private static native void bind();
}
