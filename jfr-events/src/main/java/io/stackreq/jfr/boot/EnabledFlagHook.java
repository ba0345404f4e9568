package io.stackreq.jfr.boot;

/**
 * The call JFR makes into libstackreq each time it sets an event type's enabled flag. libstackreq
 * defines this class in the boot class loader (so that {@code jdk.jfr.internal.PlatformEventType},
 * a boot class, can link to it), registers its native and inserts a call to {@link #enabledSet}
 * before every return of {@code PlatformEventType.setEnabled(boolean)}: JFR sets the flag while it
 * applies a recording's settings, on the thread that changed them ({@code Recording.enable},
 * {@code Recording.disable}, a recording starting or stopping, {@code jcmd JFR.configure}), so
 * the request gate follows before that call returns.
 *
 * <p>Not for use by applications.
 */
public final class EnabledFlagHook {
    private EnabledFlagHook() {
    }

    /**
     * Brings libstackreq's request gate up to date when {@code platformEventType} is
     * jdk.StackTraceRequest's; does nothing for other event types.
     *
     * @param platformEventType the {@code jdk.jfr.internal.PlatformEventType} whose flag was set
     */
    public static native void enabledSet(Object platformEventType);
}
