package io.stackreq.validation;

/**
 * How long the validation runs: {@link #CI} keeps the whole CI run (both JDKs) under four
 * minutes on two cores; {@link #FULL} ({@code tests/validate --full}) gives the README numbers.
 */
public record Durations(double biasSeconds, double oracleSeconds) {
    public static final Durations CI = new Durations(1.5, 2.0);
    public static final Durations FULL = new Durations(10, 6);

    /** FULL when system property stackreq.validate.full is true. */
    public static Durations fromSystemProperties() {
        return Boolean.getBoolean("stackreq.validate.full") ? FULL : CI;
    }
}
