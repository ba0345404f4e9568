package io.stackreq.export;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.nio.file.Path;

import io.stackreq.output.OutputFiles;

/** The profile formats continuous-profiling backends read, as {@code export} and {@code profile} write them. */
public enum FleetFormat {
    /** A gzipped pprof profile: go tool pprof, Pyroscope, Parca, Cloud Profiler. */
    PPROF("profile.pb.gz", "pprof profile: go tool pprof, Pyroscope, Parca"),
    /** An OTLP profiles request, binary protobuf (or OTLP/JSON). */
    OTLP("profile.otlp.pb", "OpenTelemetry profiles (OTLP ExportProfilesServiceRequest)");

    private final String fileName;
    private final String description;

    FleetFormat(String fileName, String description) {
        this.fileName = fileName;
        this.description = description;
    }

    /** What the file is and what reads it, in a few words. */
    public String description() {
        return description;
    }

    /** The name {@code profile} gives the file in its output directory. */
    public String fileName() {
        return fileName;
    }

    /**
     * Writes {@code stacks} to {@code file}, which must not be a symbolic link.
     *
     * @param json OTLP/JSON instead of binary protobuf; only for {@link #OTLP}
     */
    public void write(StackProfile stacks, Path file, boolean json) throws IOException {
        if (json && this != OTLP) {
            throw new IllegalArgumentException("JSON is an OTLP encoding, not " + this);
        }
        BufferedOutputStream out = new BufferedOutputStream(OutputFiles.newOutputStream(file), 1 << 16);
        switch (this) {
            case PPROF -> PprofWriter.write(stacks, out);
            case OTLP -> {
                if (json) {
                    OtlpWriter.writeJson(stacks, out);
                } else {
                    OtlpWriter.writeBinary(stacks, out);
                }
            }
        }
    }
}
