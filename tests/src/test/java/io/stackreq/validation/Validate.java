package io.stackreq.validation;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.stackreq.tests.support.Jdk;
import io.stackreq.validation.bias.BiasBenchmark;
import io.stackreq.validation.bias.BiasWorkloads;
import io.stackreq.validation.bias.Profiler;
import io.stackreq.validation.oracle.OracleMain;
import io.stackreq.validation.oracle.OracleRun;

/**
 * {@code tests/validate [--jdk PATH ...] [--full] [--only oracle|bias] [--attach] [--dir DIR]
 * [--profilers stackreq,async_profiler_cpu,...] [--workloads arraycopy,...] [--walker asgct|vmstructs]}: runs
 * the correctness oracle and the bias benchmark on each JDK (default: JDK 17, 21 and 25) and prints two
 * markdown tables per JDK, after one line naming the commit, the date and the command. Without
 * {@code --full} it runs the short CI durations. With {@code --attach} the oracle runs layers (a) and
 * (c) with both agents attached after a warm-up ({@link OracleRun#runAttached}); the {@code jni}
 * workload cannot run there (its natives are in liboracle.so, absent during the warm-up). {@code --walker}
 * gives the oracle's libstackreq.so that {@code walker=} option (default: the agent's own default).
 */
public final class Validate {
    /** With --attach: how long the workloads run before libstackreq.so and liboracle.so come. */
    private static final double ATTACH_WARMUP_SECONDS = 3;

    private Validate() {
    }

    public static void main(String[] args) throws Exception {
        List<Jdk> jdks = new ArrayList<>();
        boolean full = false;
        boolean attach = false;
        String only = null;
        List<String> profilers = null;
        List<String> workloads = null;
        Path root = Path.of(System.getProperty("stackreq.root", "."));
        Path dir = root.resolve("tests/target/validation");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jdk" -> jdks.add(Jdk.of(args[++i]));
                case "--full" -> full = true;
                case "--attach" -> attach = true;
                case "--only" -> only = args[++i];
                case "--dir" -> dir = Path.of(args[++i]);
                case "--profilers" -> profilers = List.of(args[++i].split(","));
                case "--workloads" -> workloads = List.of(args[++i].split(","));
                case "--walker" -> System.setProperty(OracleRun.WALKER_PROPERTY, args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (usage: validate [--jdk PATH ...] [--full] [--only oracle|bias] [--attach] [--dir DIR]"
                        + " [--walker asgct|vmstructs])");
            }
        }
        if (jdks.isEmpty()) {
            Jdk.all().forEach(jdks::add);
        }
        Durations durations = full ? Durations.FULL : Durations.CI;
        Files.createDirectories(dir);
        StringBuilder tables = new StringBuilder();
        String measuredOn = System.getProperty("stackreq.measuredOn", "Measured on an unknown commit");
        System.out.println(measuredOn + "\n");
        tables.append(measuredOn).append("\n\n");
        for (Jdk jdk : jdks) {
            List<String> oracleNames = workloads == null ? OracleMain.WORKLOADS
                    : workloads.stream().filter(OracleMain.ALL::contains).toList();
            if ((only == null || only.equals("oracle")) && !oracleNames.isEmpty()) {
                List<String> names = oracleNames;
                OracleRun.Result result = attach
                        ? OracleRun.runAttached(jdk, dir, names, ATTACH_WARMUP_SECONDS, durations.oracleSeconds())
                        : OracleRun.run(jdk, dir, names, durations.oracleSeconds());
                System.err.print(OracleTable.examples(result));
                String table = OracleTable.markdown(result, durations.oracleSeconds());
                System.out.println(table);
                tables.append(table).append('\n');
            }
            if (only == null || only.equals("bias")) {
                Map<Profiler, List<String>> plan = BiasBenchmark.fullPlan(jdk, full);
                if (profilers != null) {
                    List<String> names = profilers;
                    plan.keySet().removeIf(p -> !names.contains(p.name().toLowerCase(Locale.ROOT)));
                }
                if (workloads != null) {
                    List<String> names = workloads.stream().filter(BiasWorkloads.ALL::contains).toList();
                    plan.replaceAll((p, list) -> list.stream().filter(names::contains).toList());
                    plan.values().removeIf(List::isEmpty);
                }
                if (plan.isEmpty()) {
                    continue;
                }
                BiasBenchmark.Result result = BiasBenchmark.run(jdk, dir, plan, durations.biasSeconds());
                System.err.print(BiasTable.details(result));
                String table = BiasTable.markdown(result, durations.biasSeconds());
                System.out.println(table);
                tables.append(table).append('\n');
            }
        }
        Files.writeString(dir.resolve("tables.md"), tables);
    }

}
