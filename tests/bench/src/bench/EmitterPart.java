package bench;

import java.nio.file.Files;
import java.util.List;

/** Deliverable 3: the native emitter benchmark (jvmti-ext/bench), whose markdown is passed through. */
final class EmitterPart {
    private final Bench bench;

    EmitterPart(Bench bench) { this.bench = bench; }

    void run() throws Exception {
        if (!Files.isExecutable(bench.emitterBench)) {
            bench.emit("_Emitter benchmark not built: " + bench.emitterBench + "_");
            return;
        }
        Bench.progress("emitter (native)");
        ProcessBuilder builder = new ProcessBuilder(List.of(bench.emitterBench.toString(),
                bench.quick ? "--quick" : "--full"))
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        Process process = builder.start();
        String text = new String(process.getInputStream().readAllBytes());
        int exit = process.waitFor();
        for (String line : text.split("\n", -1)) bench.emit(line);
        if (exit != 0) bench.emit("_emitter benchmark exited " + exit + "_");
    }
}
