import java.nio.file.Path;

import io.stackreq.testapp.Scenarios;
import io.stackreq.testapp.VirtualThreads;

// What tests/aarch64.sh requests runs on the arm64 JDK with librequester.so: the scenarios of
// BiasedRequestsTest (io.stackreq.testapp.Scenarios), then, from JDK 21 on, VirtualThreadsTest's
// program with the number of virtual threads given, each with its report and recording in DIR
// (RequesterScenarios DIR VIRTUAL_THREADS). One JVM for all: under qemu a JVM's start, JFR's most,
// costs more than the scenarios, and each scenario's recording is stopped before the next starts.
public final class RequesterScenarios {
    static final String[] BIASED = {"jni-null-ucontext", "other-thread", "self-loop"};

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        for (String scenario : BIASED) {
            Scenarios.main(new String[] {scenario, "out=" + dir.resolve(scenario + ".txt"), "rec=" + dir.resolve(scenario + ".jfr")});
        }
        if (Runtime.version().feature() >= 21) {
            VirtualThreads.main(new String[] {"out=" + dir.resolve("virtual-threads.txt"),
                "rec=" + dir.resolve("virtual-threads.jfr"), "threads=" + args[1]});
        }
    }
}
