package io.stackreq.validation;

/**
 * How long the validation runs: {@link #CI} keeps ValidationTest near a minute per JDK on two
 * cores; {@link #FULL} ({@code tests/validate --full}) gives the numbers of docs/validation.md.
 * The oracle runs 3 s per workload in CI (about 2,500-3,000 signal samples each, well above the
 * 200 the assertions need); 6 s until the whole CI, with JDK 21 and the aarch64 set, passed 30
 * minutes. It ran 10 s while the AsyncGetCallTrace walk was the default: its rarest wrong traces
 * (0.02-0.07% of the class-loading workload) crossed the 0.1% the assertion allows by chance at
 * shorter runs. The VMStructs walk, the default since, had none in 1.25 million
 * samples (docs/validation.md).
 */
public record Durations(double biasSeconds, double oracleSeconds) {
    public static final Durations CI = new Durations(1.5, 3);
    public static final Durations FULL = new Durations(10, 10);

    /** FULL when system property stackreq.validate.full is true. */
    public static Durations fromSystemProperties() {
        return Boolean.getBoolean("stackreq.validate.full") ? FULL : CI;
    }
}
