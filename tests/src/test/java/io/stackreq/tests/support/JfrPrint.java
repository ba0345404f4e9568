package io.stackreq.tests.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs {@code jfr print --events <type>} of a JDK and parses its text output. */
public final class JfrPrint {
    private static final Pattern FIELD = Pattern.compile("^\\s+(\\w+) = (.*)$");
    private static final Pattern THREAD = Pattern.compile("^\"(.*)\" \\(javaThreadId = (\\d+)\\)$");

    private JfrPrint() {
    }

    /** One printed event: its scalar fields as printed, the thread name and the stack lines. */
    public static final class Printed {
        public final java.util.Map<String, String> fields = new java.util.LinkedHashMap<>();
        public final List<String> stack = new ArrayList<>();
        public String threadName;

        public long userData() {
            return Long.parseLong(fields.get("userData"));
        }

        public boolean flag(String name) {
            return Boolean.parseBoolean(fields.get(name));
        }

        @Override
        public String toString() {
            return fields + " thread=" + threadName + " stack=" + stack;
        }
    }

    public static String print(Jdk jdk, Path file, String eventType, Path workDir) {
        JvmRun.Result result = JvmRun.command(jdk, workDir,
                List.of(jdk.tool("jfr").toString(), "print", "--events", eventType, file.toString()))
                .name("jfr-print-" + file.getFileName()).timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, result.exitCode(), () -> "jfr print failed on " + file + "\n" + result);
        return result.stdout();
    }

    /** Parses the events named {@code eventType} out of {@code jfr print} text. */
    public static List<Printed> parse(String text, String eventType) {
        List<Printed> events = new ArrayList<>();
        Printed current = null;
        boolean inStack = false;
        for (String line : text.split("\n")) {
            if (current == null) {
                if (line.equals(eventType + " {")) {
                    current = new Printed();
                }
                continue;
            }
            if (line.equals("}")) {
                events.add(current);
                current = null;
                inStack = false;
                continue;
            }
            if (inStack) {
                String trimmed = line.trim();
                if (trimmed.equals("]")) {
                    inStack = false;
                } else if (!trimmed.equals("...")) {
                    current.stack.add(trimmed);
                }
                continue;
            }
            Matcher field = FIELD.matcher(line);
            if (!field.matches()) {
                continue;
            }
            String name = field.group(1);
            String value = field.group(2);
            if (name.equals("stackTrace") && value.equals("[")) {
                inStack = true;
            } else if (name.equals("eventThread")) {
                Matcher thread = THREAD.matcher(value);
                current.threadName = thread.matches() ? thread.group(1) : value;
            } else {
                current.fields.put(name, value);
            }
        }
        return events;
    }
}
