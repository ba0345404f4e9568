package io.stackreq.tests.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A core test: it runs once on every configured JDK and on those only the core tests run on
 * ({@link Jdk#core()}: JDK 21 in tests/run's default set), which it takes as its parameter. The
 * core tests are those that check what depends on the JDK's internals most: the stacks against
 * the oracle, the frame layouts of the VMStructs walk, virtual threads, JFR's chunks.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest
@MethodSource("io.stackreq.tests.support.Jdk#core")
public @interface OnEachCoreJdk {
}
