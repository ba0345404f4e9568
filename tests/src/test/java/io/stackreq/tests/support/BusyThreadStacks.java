package io.stackreq.tests.support;

import java.util.List;

import io.stackreq.testapp.BusyThreads;

/**
 * The bottom of a stack (top first) of one of {@link BusyThreads}' workers: {@code Thread.run},
 * its lambda, then its work class's {@code run}, below which no frame of the work class may stand.
 */
public final class BusyThreadStacks {
    /** The worker lambdas' names start so. */
    public static final String LAMBDA_PREFIX = BusyThreads.class.getName() + ".lambda$main$";
    /** {@link #runFrame}: the thread is in its lambda, before it calls run or after run returned. */
    public static final int OUTSIDE_RUN = -1;
    /** {@link #runFrame}: the stack's bottom is not a worker's. */
    public static final int NOT_WHOLE = -2;

    private BusyThreadStacks() {
    }

    /** The index of {@code work.run} in the stack, {@link #OUTSIDE_RUN} or {@link #NOT_WHOLE}. */
    public static int runFrame(List<String> methods, String work) {
        if (methods.isEmpty() || !methods.get(methods.size() - 1).equals("java.lang.Thread.run")) {
            return NOT_WHOLE;
        }
        int run = methods.indexOf(work + ".run");
        if (run < 0) {
            return methods.stream().anyMatch(m -> m.startsWith(LAMBDA_PREFIX))
                    && methods.stream().noneMatch(m -> m.startsWith(work)) ? OUTSIDE_RUN : NOT_WHOLE;
        }
        if (run + 2 >= methods.size() || !methods.get(run + 1).startsWith(LAMBDA_PREFIX)) {
            return NOT_WHOLE;
        }
        for (int i = run + 1; i < methods.size(); i++) {
            if (methods.get(i).startsWith(work)) {
                return NOT_WHOLE;
            }
        }
        return run;
    }
}
