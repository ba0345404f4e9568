package io.stackreq.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.stackreq.join.JoinOutcome;
import io.stackreq.join.JoinRunner;
import io.stackreq.output.JoinedSamplesWriter;
import io.stackreq.output.OutputFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "join", mixinStandardHelpOptions = true,
        description = "Write one JSON object per sample (per event without --samples) with its stack, "
                + "top frame first, and what the join found "
                + "(status: matched, no_event, failed_event, rejected, duplicate).")
final class JoinCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RecordingInput input;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "JSON-lines file to write (default: standard output)")
    Path output;

    @Override
    public Integer call() throws IOException {
        OutputStream out = output == null ? System.out : open(output);
        JoinOutcome outcome;
        try (JoinedSamplesWriter writer = new JoinedSamplesWriter(new NonClosing(out))) {
            outcome = JoinRunner.run(input.joinInputs(), List.of(writer));
        } finally {
            if (output != null) {
                out.close();
            } else {
                out.flush();
            }
        }
        if (output != null) {
            spec.commandLine().getErr().println(String.format(Locale.ROOT,
                    "stackreq: wrote %s (%,d samples, %,d matched)",
                    output, Math.max(outcome.quality().samples(), outcome.quality().events()),
                    outcome.quality().matched()));
        }
        return 0;
    }

    private static OutputStream open(Path file) {
        return new BufferedOutputStream(OutputFiles.newOutputStream(file), 1 << 16);
    }

    /** Lets the JSON writer close without closing standard output. */
    private static final class NonClosing extends java.io.FilterOutputStream {
        NonClosing(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            out.write(bytes, offset, length);
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }
}
