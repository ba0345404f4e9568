package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.stackreq.fixtures.ScaleInputs;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;

/**
 * Issue 14, acceptance 5, in small: {@code export} keeps a few primitive values per stack-trace
 * event and the distinct stacks, so 300,000 joined samples export in a 24 MB heap. Before it
 * streamed, the CLI kept JMC core's items and a map entry per event (about 150 bytes an event:
 * 45 MB here) and the same export ran out of memory in 32 MB. The 5-million run in -Xmx256m is
 * tests/bench/export's, with its timings.
 */
@Tag("alone")
class ExportMemoryTest {
    private static final int SAMPLES = 300_000;
    private static final String HEAP = "-Xmx24m";
    private static Path inputs;

    @BeforeAll
    static void writeInputs() throws IOException {
        inputs = JvmRun.targetDir().resolve("e2e-cli").resolve("export-memory");
        if (!Files.isRegularFile(inputs.resolve("samples.jsonl"))) {
            ScaleInputs.main(new String[] {Integer.toString(SAMPLES), inputs.toString()});
        }
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void exportsThreeHundredThousandJoinedSamplesInA24MegabyteHeap(Jdk jdk) throws IOException {
        Path workDir = Files.createDirectories(inputs.resolve("jdk" + jdk.feature()));
        Path output = workDir.resolve("profile.pb.gz");
        JvmRun.Result result = JvmRun.cli(jdk, workDir, List.of("export", inputs.resolve("recording.jfr").toString(),
                "--samples", inputs.resolve("samples.jsonl").toString(), "--format", "pprof", "-o", output.toString()))
                .flags(HEAP).name("export").timeout(Duration.ofMinutes(3)).run(); // fails the test unless it exits 0
        assertTrue(result.stderr().contains("(300,000 samples in 16 stacks)"), result::toString);
        assertTrue(Files.size(output) > 0);
    }
}
