package io.stackreq.reliability.support;

import java.nio.file.Path;

import io.stackreq.tests.support.JvmRun;

/**
 * Sizes of the reliability runs: short in CI, long with {@code -Dstackreq.long=true} (see
 * docs/reliability.md). Everything that depends on the mode is here, so the two are easy to
 * compare.
 */
public final class Reliability {
    private Reliability() {
    }

    /** Whether this is the long run ({@code -Dstackreq.long=true}). */
    public static boolean longRun() {
        return Boolean.parseBoolean(System.getProperty("stackreq.long", "false"));
    }

    /** Fuzzed requests per JDK: 50,000 in CI, 1,000,000 in the long run. */
    public static long fuzzedRequests() {
        return Long.getLong("stackreq.fuzz.requests", longRun() ? 1_000_000 : 50_000);
    }

    /** Seconds of stress per JDK: 25 in CI, 30 minutes long. */
    public static int stressSeconds() {
        return Integer.getInteger("stackreq.stress.seconds", longRun() ? 30 * 60 : 25);
    }

    /** Mutated files per input kind fed to the CLI: a few hundred in CI, 10,000+ long. */
    public static int cliFuzzFiles() {
        return Integer.getInteger("stackreq.cli.fuzz.files", longRun() ? 12_000 : 200);
    }

    public static Path chaosLibrary() {
        return JvmRun.testNativeDir().resolve("libchaos.so");
    }

    public static Path perfAgentLibrary() {
        return JvmRun.nativeDir().resolve("libstackreq-perf.so");
    }
}
