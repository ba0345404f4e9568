import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * tests/aarch64.sh demo's check, run with the host's JDK and stackreq.jar on the class path (java
 * -cp stackreq.jar CheckDemo.java REPORT.json DEMO.txt): the share of copyArrays in the CPU time
 * the demo's report gives copyArrays and countedLoop (their total weight, stack frames below
 * included) against the share BiasTrap measured with its thread's CPU clock (its line in the
 * demo's output), within 3 points, from at least 500 matched samples. Prints the numbers either
 * way; exits 1 with one line per broken rule.
 */
public final class CheckDemo {
    private static final double BOUND_POINTS = 3;
    private static final int MINIMUM_MATCHED = 500;
    private static final String COPY = "io.stackreq.demo.BiasTrap.copyArrays";
    private static final String LOOP = "io.stackreq.demo.BiasTrap.countedLoop";
    private static final Pattern MEASURED = Pattern.compile("BiasTrap: measured copyArrays ([0-9.]+)% \\(([0-9.]+) s");

    public static void main(String[] args) throws IOException {
        JsonNode report = new ObjectMapper().readTree(Path.of(args[0]).toFile());
        Matcher measured = MEASURED.matcher(Files.readString(Path.of(args[1])));
        if (!measured.find()) {
            System.err.println("CheckDemo: no 'BiasTrap: measured' line in " + args[1]);
            System.exit(1);
        }
        double measuredCopy = Double.parseDouble(measured.group(1));
        long copy = 0;
        long loop = 0;
        for (JsonNode entry : report.get("entries")) {
            String name = entry.get("name").asText();
            if (name.equals(COPY)) {
                copy = entry.get("total").asLong();
            } else if (name.equals(LOOP)) {
                loop = entry.get("total").asLong();
            }
        }
        JsonNode quality = report.get("quality");
        long matched = quality.get("matched").asLong();
        long failedEvent = quality.get("failedEvent").asLong();
        double stackreqCopy = copy + loop == 0 ? 0 : 100.0 * copy / (copy + loop);
        double off = stackreqCopy - measuredCopy;
        System.err.printf(Locale.ROOT, "CheckDemo: copyArrays %.1f%% of copyArrays + countedLoop in the report "
                + "(%.2f s and %.2f s of sampled CPU), measured %.1f%%: %+.1f points (bound %.0f); %,d samples "
                + "matched, %,d whose event has no stack (%.1f%% of those with an event)%n", stackreqCopy, copy / 1e9,
                loop / 1e9, measuredCopy, off, BOUND_POINTS, matched, failedEvent,
                100.0 * failedEvent / Math.max(1, matched + failedEvent));
        boolean broken = false;
        if (matched < MINIMUM_MATCHED) {
            System.err.printf(Locale.ROOT, "CheckDemo: %,d matched samples, fewer than %,d: run longer%n", matched,
                    MINIMUM_MATCHED);
            broken = true;
        }
        if (Math.abs(off) > BOUND_POINTS) {
            System.err.printf(Locale.ROOT, "CheckDemo: the report's split is %+.1f points off the measured one%n", off);
            broken = true;
        }
        System.exit(broken ? 1 : 0);
    }
}
