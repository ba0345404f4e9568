package io.stackreq.jfr.internal;

import java.util.Set;
import java.util.concurrent.TimeUnit;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.MetadataDefinition;
import jdk.jfr.Name;
import jdk.jfr.SettingControl;

/**
 * The {@code throttle} setting of jdk.StackTraceRequest: {@code off} or {@code N/unit} with unit
 * {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m}, {@code h}, {@code d}. When several
 * recordings set it, the most permissive rate wins (as JFR does for its own throttled events).
 * JFR calls {@link #setValue} whenever the running recordings change; the value is forwarded to
 * the native request gate. Public only because JFR instantiates it reflectively.
 */
@MetadataDefinition
@Name("jdk.settings.Throttle")
@Label("Throttle")
@Description("Maximum number of events per time unit, or off")
public final class ThrottleSetting extends SettingControl {
    static final String OFF = "off";

    private String value = OFF;

    /** Creates the setting; JFR does this when the event class is registered. */
    public ThrottleSetting() {
    }

    @Override
    public String combine(Set<String> values) {
        String best = null;
        double bestRate = -1;
        for (String candidate : values) {
            Rate rate = Rate.parse(candidate);
            if (rate == null) {
                continue;
            }
            double perSecond = rate.perSecond();
            if (perSecond > bestRate) {
                bestRate = perSecond;
                best = candidate;
            }
        }
        return best == null ? OFF : best;
    }

    @Override
    public void setValue(String settingValue) {
        Rate rate = Rate.parse(settingValue);
        this.value = rate == null ? OFF : settingValue;
        if (NativeBridge.isRegistered()) {
            if (rate == null || rate.isOff()) {
                NativeBridge.setThrottle(0, TimeUnit.SECONDS.toNanos(1));
            } else {
                NativeBridge.setThrottle(rate.count, rate.windowNanos);
            }
        }
    }

    @Override
    public String getValue() {
        return value;
    }

    /** A parsed throttle value; {@code count == Long.MAX_VALUE} means off. */
    static final class Rate {
        final long count;
        final long windowNanos;

        private Rate(long count, long windowNanos) {
            this.count = count;
            this.windowNanos = windowNanos;
        }

        boolean isOff() {
            return count == Long.MAX_VALUE;
        }

        double perSecond() {
            return isOff() ? Double.MAX_VALUE : count * 1e9 / windowNanos;
        }

        /** Returns null for a malformed value. */
        static Rate parse(String text) {
            if (text == null) {
                return null;
            }
            String trimmed = text.trim();
            if (trimmed.equals(OFF)) {
                return new Rate(Long.MAX_VALUE, 1);
            }
            int slash = trimmed.indexOf('/');
            if (slash <= 0) {
                return null;
            }
            long count;
            try {
                count = Long.parseLong(trimmed.substring(0, slash).trim());
            } catch (NumberFormatException e) {
                return null;
            }
            long window;
            switch (trimmed.substring(slash + 1).trim()) {
                case "ns": window = 1; break;
                case "us": window = TimeUnit.MICROSECONDS.toNanos(1); break;
                case "ms": window = TimeUnit.MILLISECONDS.toNanos(1); break;
                case "s": window = TimeUnit.SECONDS.toNanos(1); break;
                case "m": window = TimeUnit.MINUTES.toNanos(1); break;
                case "h": window = TimeUnit.HOURS.toNanos(1); break;
                case "d": window = TimeUnit.DAYS.toNanos(1); break;
                default: return null;
            }
            return count < 0 ? null : new Rate(count, window);
        }
    }
}
