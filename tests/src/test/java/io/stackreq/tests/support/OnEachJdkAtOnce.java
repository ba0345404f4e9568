package io.stackreq.tests.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link OnEachJdk}, with the JDKs' invocations running side by side (two at once:
 * src/test/resources/junit-platform.properties), for a test whose JVMs each keep about one core
 * busy, so that two of them fit the two cores CI has. Not for a test that asserts CPU shares,
 * rates or anything else the other JVM's load would change.
 *
 * <p>It must be the only test of its class (a {@code @Nested} class will do): JUnit runs a
 * class's other, same-thread tests while the concurrent ones run.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest
@MethodSource("io.stackreq.tests.support.Jdk#all")
@Execution(ExecutionMode.CONCURRENT)
public @interface OnEachJdkAtOnce {
}
