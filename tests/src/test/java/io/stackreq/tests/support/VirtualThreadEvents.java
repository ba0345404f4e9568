package io.stackreq.tests.support;

import java.util.ArrayList;
import java.util.List;

import io.stackreq.testapp.Requester;
import io.stackreq.testapp.VirtualThreads;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;

/**
 * The rules for {@link VirtualThreads}' events, shared by VirtualThreadsTest on x86_64 and
 * tests/aarch64/CheckRequests.java under qemu: every request made in a virtual thread (the
 * carriers' timers, with the signal's ucontext, and each virtual thread's own, without) is an
 * event of that virtual thread whose stack ends at the virtual thread's entry with no carrier
 * frame, or is marked truncated where frames were still frozen in the continuation.
 */
public final class VirtualThreadEvents {
    /** Frames of the virtual threads' own code: their task's lambda and virtualWork. */
    private static final String APP = VirtualThreads.class.getName();
    private static final String ENTRY = "jdk.internal.vm.Continuation.enterSpecial";
    private static final String VIRTUAL_RUN = "java.lang.VirtualThread.run";

    /**
     * What the events held: those in a virtual thread, those of them from the carriers' timers,
     * failed ones (a timer signal during a mount or unmount: no walk, the right thread), truncated
     * ones (frames still frozen in the continuation: the walked top frames only), and one line per
     * event that breaks a rule.
     */
    public record Tally(long inVirtual, long timerInVirtual, long failedInVirtual, long truncatedInVirtual,
            List<String> wrong) {
        public String summary() {
            return inVirtual + " in a virtual thread (" + timerInVirtual + " from timers), " + failedInVirtual
                    + " failed, " + truncatedInVirtual + " truncated at frames still frozen";
        }
    }

    private VirtualThreadEvents() {
    }

    public static Tally check(List<RecordedEvent> events) {
        List<String> wrong = new ArrayList<>();
        long inVirtual = 0;
        long timerInVirtual = 0;
        long failedInVirtual = 0;
        long truncatedInVirtual = 0;
        for (RecordedEvent event : events) {
            boolean explicitRequest = event.getLong("userData") >= VirtualThreads.EXPLICIT_IDS;
            List<String> methods = JfrFile.methods(event);
            RecordedThread thread = event.getThread();
            boolean virtual = thread != null && thread.getBoolean("virtual");
            boolean appCode = methods.stream().anyMatch(m -> m.startsWith(APP) && !m.endsWith(".main"));
            if (!explicitRequest && !appCode && !virtual) {
                continue;  // the carrier's own code
            }
            inVirtual++;
            timerInVirtual += explicitRequest ? 0 : 1;
            if (!virtual || !(thread.getJavaName().startsWith("vt-") || thread.getJavaName().startsWith("arm-"))) {
                wrong.add("not on its virtual thread: " + JfrFile.describe(event));
            } else if (event.getBoolean("failed")) {
                failedInVirtual++;
                if (explicitRequest) {
                    wrong.add("its own request failed: " + JfrFile.describe(event));
                }
            } else if (methods.stream().anyMatch(m -> m.startsWith("java.util.concurrent.ForkJoin"))) {
                wrong.add("carrier frames: " + JfrFile.describe(event));
            } else if (event.getStackTrace().isTruncated()) {
                truncatedInVirtual++;
                if (methods.contains(ENTRY)) {
                    wrong.add("truncated through its entry: " + JfrFile.describe(event));
                }
            } else if (!ENTRY.equals(methods.get(methods.size() - 1))
                    || !(methods.contains(VIRTUAL_RUN) || inTransition(methods))) {
                wrong.add("not the whole virtual thread stack: " + JfrFile.describe(event));
            } else if (explicitRequest && !(Requester.class.getName() + ".request").equals(methods.get(0))) {
                wrong.add("its own request is not at the call: " + JfrFile.describe(event));
            }
        }
        return new Tally(inVirtual, timerInVirtual, failedInVirtual, truncatedInVirtual, wrong);
    }

    /**
     * A signal in the virtual thread's start or end transition (VirtualThread.notifyJvmtiStart,
     * the continuation's run before VirtualThread.run is called or after it returned) finds only
     * these JDK frames above the entry: a whole stack too.
     */
    private static boolean inTransition(List<String> methods) {
        return methods.stream().allMatch(m -> m.startsWith("java.lang.VirtualThread.")
                || m.startsWith("java.lang.VirtualThread$") || m.startsWith("jdk.internal.vm.Continuation."));
    }
}
