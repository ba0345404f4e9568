package io.stackreq.tests.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A JDK the JVM-launching tests run on. The whole suite runs on the homes in system property
 * {@code stackreq.jdks} ({@link #all()}, the source of {@link OnEachJdk}; tests/run passes JDK 17
 * and 25); the platform set, the tests marked {@link OnEverySupportedJdk}, also on those in
 * {@code stackreq.platform.jdks} ({@link #everySupported()}; tests/run passes the other supported
 * JDKs). Both are comma-separated lists.
 *
 * @param home its home directory
 * @param feature its feature release: 17, 25, ...
 */
public record Jdk(Path home, int feature) {

    /** The JDKs the whole suite runs on; fails when none is configured rather than skipping. */
    public static Stream<Jdk> all() {
        String list = System.getProperty("stackreq.jdks", "");
        // Maven leaves ${...} as it is when the property is not set.
        if (list.isBlank() || list.contains("${")) {
            throw new IllegalStateException("no JDKs to test on (stackreq.jdks='" + list
                    + "'): run tests/run, or pass -Dstackreq.jdks=HOME,HOME");
        }
        return homes(list);
    }

    /** The JDKs the platform set runs on: {@link #all()} and then those of the platform set only. */
    public static Stream<Jdk> everySupported() {
        String platform = System.getProperty("stackreq.platform.jdks", "");
        if (platform.contains("${")) platform = "";
        return Stream.concat(all(), homes(platform));
    }

    private static Stream<Jdk> homes(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(Jdk::of);
    }

    /** The JDK running the tests (the stackreq CLI's own JVM in the tests that run it). */
    public static Jdk current() {
        return of(System.getProperty("java.home"));
    }

    public static Jdk of(String home) {
        Path path = Path.of(home);
        Path release = path.resolve("release");
        if (!Files.isRegularFile(release) || !Files.isExecutable(path.resolve("bin/java"))) {
            throw new IllegalStateException("not a JDK home (no release file or bin/java): " + home);
        }
        try {
            Matcher m = Pattern.compile("JAVA_VERSION=\"(?:1\\.)?(\\d+)").matcher(Files.readString(release));
            if (!m.find()) {
                throw new IllegalStateException("no JAVA_VERSION in " + release);
            }
            return new Jdk(path, Integer.parseInt(m.group(1)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path java() {
        return home.resolve("bin/java");
    }

    public Path tool(String name) {
        return home.resolve("bin").resolve(name);
    }

    @Override
    public String toString() {
        return "JDK " + feature;
    }
}
