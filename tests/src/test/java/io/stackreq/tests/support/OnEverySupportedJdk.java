package io.stackreq.tests.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A test of the platform set: it runs on the whole suite's JDKs and on every other supported JDK
 * ({@link Jdk#everySupported()}), which it takes as its parameter. The platform set is what each
 * supported JDK must show on its own: the request path, a continuous recording dumped and
 * killed, attach, Datadog's profiler, the oracle.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest
@MethodSource("io.stackreq.tests.support.Jdk#everySupported")
public @interface OnEverySupportedJdk {
}
