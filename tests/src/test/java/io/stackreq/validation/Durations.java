package io.stackreq.validation;

/**
 * How long the validation runs: {@link #CI} keeps the whole CI run (both JDKs) under eight
 * minutes on two cores; {@link #FULL} ({@code tests/validate --full}) gives the numbers of docs/validation.md.
 * The oracle runs 10 s per workload in CI too (about 9,000 signal samples each): the rarest
 * wrong traces left (AsyncGetCallTrace's interpreter and VM-transition windows, 0.02-0.07% of
 * the class-loading workload's samples) then stay clear of the 0.1% the assertion allows. At
 * 2 s (1,800 samples) they crossed it by chance in about one JDK-run in six; at 6 s, by a
 * Poisson estimate from the measured rate, in about one JDK 25 run in 25.
 */
public record Durations(double biasSeconds, double oracleSeconds) {
    public static final Durations CI = new Durations(1.5, 10);
    public static final Durations FULL = new Durations(10, 10);

    /** FULL when system property stackreq.validate.full is true. */
    public static Durations fromSystemProperties() {
        return Boolean.getBoolean("stackreq.validate.full") ? FULL : CI;
    }
}
