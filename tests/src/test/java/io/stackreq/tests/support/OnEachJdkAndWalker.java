package io.stackreq.tests.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A test that runs on every configured JDK with each stack walker the agent has (its
 * {@code walker=} option: AsyncGetCallTrace, stackreq's own): it takes the JDK and the option's
 * value as its parameters ({@link Walkers#onEachJdk()}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0} walker={1}")
@MethodSource("io.stackreq.tests.support.Walkers#onEachJdk")
public @interface OnEachJdkAndWalker {
}
