package io.stackreq.testapp;

import java.util.Map;
import java.util.TreeMap;

/**
 * An application that uses nothing of JFR, for a JVM without the jdk.jfr module: requests its
 * own stack ({@code RequestStackTrace(env, NULL, NULL, id)}, ids 1 to 10) through librequester.so,
 * reports the return codes ({@code rc.<code>}) to {@code out}, prints one line and exits with
 * {@code exit}.
 */
public final class NoJfrApp {
    private NoJfrApp() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        Map<Integer, Integer> codes = new TreeMap<>();
        for (int id = 1; id <= 10; id++) {
            codes.merge(Requester.request(null, id), 1, Integer::sum);
        }
        Report report = new Report();
        codes.forEach((code, count) -> report.put("rc." + code, count));
        report.write(a.path("out"));
        int exit = a.getInt("exit", 0);
        System.out.println("NoJfrApp: exit " + exit);
        System.exit(exit);
    }
}
