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
 * A JDK the JVM-launching tests run on. {@link #all()} is the {@code @MethodSource} of every such
 * test ({@link OnEachJdk}): the homes in system property {@code stackreq.jdks} (comma separated;
 * tests/run passes the JDK 17, 21 and 25 it found, a bare mvn JDK17_HOME and JDK25_HOME).
 *
 * @param home its home directory
 * @param feature its feature release: 17, 25, ...
 */
public record Jdk(Path home, int feature) {

    /** Every configured JDK; fails when one is missing rather than skipping it silently. */
    public static Stream<Jdk> all() {
        String list = System.getProperty("stackreq.jdks", "");
        // Maven leaves ${env.JDK17_HOME} as it is when the variable is not set.
        if (list.isBlank() || list.contains("${")) {
            throw new IllegalStateException("no JDKs to test on (stackreq.jdks='" + list
                    + "'): run tests/run, or set JDK17_HOME, JDK21_HOME and JDK25_HOME");
        }
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
