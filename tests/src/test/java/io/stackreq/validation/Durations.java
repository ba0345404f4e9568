package io.stackreq.validation;

/**
 * How long the validation runs: {@link #CI} keeps the whole CI run (both JDKs) under seven
 * minutes on two cores; {@link #FULL} ({@code tests/validate --full}) gives the README numbers.
 * The oracle's CI time gives about 5,000 signal samples per workload: the rarest wrong traces
 * left (AsyncGetCallTrace's interpreter-entry and VM-transition windows, about 0.03% of the
 * class-loading workload's samples) then stay well clear of the 0.1% the assertion allows,
 * where 2 seconds (1,800 samples) crossed it by chance in about one run in six.
 */
public record Durations(double biasSeconds, double oracleSeconds) {
    public static final Durations CI = new Durations(1.5, 6.0);
    public static final Durations FULL = new Durations(10, 10);

    /** FULL when system property stackreq.validate.full is true. */
    public static Durations fromSystemProperties() {
        return Boolean.getBoolean("stackreq.validate.full") ? FULL : CI;
    }
}
