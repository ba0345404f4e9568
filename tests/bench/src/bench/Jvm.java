package bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.stackreq.tests.support.ChildProcess;

/** One JDK, and launching a JVM of it with its output kept in a run directory. */
final class Jvm {
    final Path home;
    final int feature;

    Jvm(Path home) throws IOException {
        this.home = home;
        if (!Files.isExecutable(home.resolve("bin/java"))) {
            throw new IOException("not a JDK: " + home + " (no bin/java)");
        }
        int found = 0;
        for (String line : Files.readAllLines(home.resolve("release"))) {
            if (line.startsWith("JAVA_VERSION=")) {
                String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                found = Integer.parseInt(v.split("[.+-]")[0]);
            }
        }
        if (found == 0) throw new IOException("cannot read the version of " + home);
        this.feature = found;
    }

    String label() { return "JDK " + feature; }

    /** What a finished JVM printed; lines with the monotonic time they arrived. */
    record Result(Path dir, int exitCode, List<String> lines, List<Long> lineNanos, long pid, long startNanos,
            long endNanos) {
        /** key=value pairs of the first stdout line starting with prefix, or an exception naming the run. */
        Map<String, String> fields(String prefix) {
            for (String line : lines) {
                if (line.startsWith(prefix + " ")) {
                    Map<String, String> fields = new HashMap<>();
                    for (String part : line.substring(prefix.length() + 1).split(" ")) {
                        int eq = part.indexOf('=');
                        if (eq > 0) fields.put(part.substring(0, eq), part.substring(eq + 1));
                    }
                    return fields;
                }
            }
            throw new IllegalStateException("run in " + dir + " exited " + exitCode + " without a '" + prefix
                    + "' line; see " + dir.resolve("stdout.txt") + " and stderr.txt");
        }

        /** Arrival time of the first line starting with prefix, or -1. */
        long nanosOf(String prefix) {
            for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith(prefix)) return lineNanos.get(i);
            return -1;
        }
    }

    /**
     * Runs java with jvmArgs, then mainClass and args; stdout and stderr go to dir. monitor, when
     * not null, runs on its own thread with the live process until it ends.
     */
    Result run(Path dir, List<String> jvmArgs, String classpath, String mainClass, List<String> args,
               int timeoutSeconds, Consumer<Process> monitor) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/java").toString());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        Files.createDirectories(dir);
        Files.write(dir.resolve("command.txt"), List.of(String.join(" ", command)));
        ChildProcess.Outcome outcome = ChildProcess.run(command, dir, dir.resolve("stdout.txt"),
                dir.resolve("stderr.txt"), Duration.ofSeconds(timeoutSeconds), home.resolve("bin/jstack"),
                dir.resolve("hang.txt"), monitor);
        if (outcome.hung()) Bench.progress("hang: " + dir + " did not exit within " + timeoutSeconds + " s; threads in "
                + dir.resolve("hang.txt"));
        return new Result(dir, outcome.exitCode(), outcome.lines(), outcome.lineNanos(), outcome.pid(),
                outcome.startNanos(), outcome.endNanos());
    }
}
