package io.stackreq.tests.support;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;

/** The values of the agent's {@code walker=} option, for {@link OnEachJdkAndWalker}. */
public final class Walkers {
    public static final List<String> ALL = List.of("asgct", "vmstructs");

    private Walkers() {
    }

    /** Every configured JDK with every walker. */
    public static Stream<Arguments> onEachJdk() {
        return Jdk.all().flatMap(jdk -> ALL.stream().map(walker -> Arguments.of(jdk, walker)));
    }
}
