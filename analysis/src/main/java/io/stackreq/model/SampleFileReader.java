package io.stackreq.model;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Streams the perf agent's JSON-lines sample file: one line in memory at a time, so a file of any
 * size reads in bounded memory. Lines longer than {@link #MAX_LINE_BYTES} are an error: no valid
 * record comes near it, so such a line means the file is not a sample file.
 */
public final class SampleFileReader implements SampleSource {
    public static final int MAX_LINE_BYTES = 1 << 20;
    /** The perf agent's library: the requester of the stack traces its samples refer to. */
    public static final String PERF_AGENT_LIBRARY = "libstackreq-perf.so";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** CPUs whose latest overflow is kept: a sample on a higher-numbered one (no machine has one) gets its own. */
    private static final int MAX_CPUS = 1 << 12;

    private final Path file;
    private final InputStream in;
    private final ByteArrayOutputStream lineBuffer = new ByteArrayOutputStream(256);
    private final byte[] readBuffer = new byte[1 << 16];
    private int position;
    private int limit;
    private final SampleFileHeader header;
    private long lineNumber;
    private SampleFileSummary summary;
    private boolean unterminatedLine;
    private boolean truncatedLastLine;
    /**
     * The latest overflow read on each CPU, at CPU + 1 (CPU -1: not recorded), for {@link #overflow}
     * to share: a sample line then makes one Sample and no Overflow of its own.
     */
    private Sample.Overflow[] latestOverflows = new Sample.Overflow[64];

    private SampleFileReader(Path file, InputStream in) {
        this.file = file;
        this.in = in;
        this.header = readHeader();
    }

    /** Opens the file and reads its header line. */
    public static SampleFileReader open(Path file) {
        try {
            return new SampleFileReader(file, Files.newInputStream(file));
        } catch (NoSuchFileException e) {
            throw new InputException("sample file not found: " + file);
        } catch (IOException e) {
            throw new InputException("cannot read sample file " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Path file() {
        return file;
    }

    @Override
    public String format() {
        return PERF;
    }

    @Override
    public SampleFileHeader header() {
        return header;
    }

    /** Calls {@code action} for every sample, in file order, until the end line or end of file. */
    @Override
    public void forEachSample(Consumer<Sample> action) {
        byte[] line;
        while ((line = nextLine()) != null) {
            JsonNode node = parse(line);
            if (node == null) {
                continue;
            }
            String type = node.path("type").asText("");
            switch (type) {
                case "sample" -> action.accept(sample(node));
                case "end" -> summary = summary(node);
                case "start" -> throw error("a second start line (two runs written to one file?)");
                default -> throw error("unknown record type '" + type + "'");
            }
        }
    }

    /** The end line, once {@link #forEachSample} has run; empty when the file has none (JVM killed). */
    @Override
    public Optional<SampleFileSummary> summary() {
        return Optional.ofNullable(summary);
    }

    /** Whether the file ended in the middle of a line (the writer was killed while writing it). */
    @Override
    public boolean truncatedLastLine() {
        return truncatedLastLine;
    }

    /** None: the perf agent requests a stack trace for every sample. */
    @Override
    public long undelegated() {
        return 0;
    }

    @Override
    public Optional<String> requester() {
        return Optional.of(PERF_AGENT_LIBRARY);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    private SampleFileHeader readHeader() {
        byte[] line = nextLine();
        if (line == null) {
            throw new InputException("sample file " + file + " is empty");
        }
        JsonNode node = parse(line);
        if (node == null || !"start".equals(node.path("type").asText())) {
            throw error("expected the start line {\"type\":\"start\",...}");
        }
        String leader = text(node, "leader", true);
        List<String> events = new ArrayList<>();
        for (JsonNode event : node.path("events")) {
            events.add(event.asText());
        }
        if (events.isEmpty()) {
            events.add(leader);
        }
        return new SampleFileHeader(text(node, "engine", false), leader, events,
                new SampleFileHeader.SamplePeriod(node.path("period").asLong(0), text(node, "periodUnit", false)),
                node.path("pid").asLong(-1), text(node, "clock", false));
    }

    private Sample sample(JsonNode node) {
        Map<String, Long> deltas = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.path("deltas").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> delta = it.next();
            if (!delta.getValue().canConvertToLong()) {
                throw error("delta '" + delta.getKey() + "' is not an integer");
            }
            deltas.put(delta.getKey(), delta.getValue().asLong());
        }
        Sample.Overflow overflow = overflow(node.path("event").asText(header.leader()),
                node.path("period").asLong(header.period().value()), node.path("cpu").asInt(-1),
                node.path("error").asInt(0));
        return new Sample(lineNumber, number(node, "userData"), number(node, "tid"), node.path("time").asLong(0),
                overflow, deltas);
    }

    /**
     * The overflow of the previous sample on {@code cpu} when it has these values (nearly always:
     * the leader, its period and 0 repeat), else a new one that the next samples on that CPU share.
     */
    private Sample.Overflow overflow(String event, long period, int cpu, int error) {
        int slot = cpu + 1;
        if (slot < 0 || slot >= MAX_CPUS) {
            return new Sample.Overflow(event, period, cpu, error);
        }
        if (slot >= latestOverflows.length) {
            latestOverflows = Arrays.copyOf(latestOverflows, Math.min(MAX_CPUS, Math.max(slot + 1,
                    2 * latestOverflows.length)));
        }
        Sample.Overflow latest = latestOverflows[slot];
        if (latest == null || !latest.is(event, period, cpu, error)) {
            latest = new Sample.Overflow(event, period, cpu, error);
            latestOverflows[slot] = latest;
        }
        return latest;
    }

    private SampleFileSummary summary(JsonNode node) {
        Map<Integer, Long> errors = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.path("errors").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> entry = it.next();
            try {
                errors.put(Integer.parseInt(entry.getKey()), entry.getValue().asLong());
            } catch (NumberFormatException e) {
                throw error("error code '" + entry.getKey() + "' is not a number");
            }
        }
        return new SampleFileSummary(node.path("samples").asLong(0), node.path("lost").asLong(0), errors);
    }

    private long number(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.canConvertToLong()) {
            throw error("missing or non-integer field '" + field + "'");
        }
        return value.asLong();
    }

    private String text(JsonNode node, String field, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            if (required) {
                throw error("missing field '" + field + "'");
            }
            return "";
        }
        return value.asText();
    }

    /** Parses one line; null for a blank line or for a cut-off last line (reported, not fatal). */
    private JsonNode parse(byte[] line) {
        if (isBlank(line)) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(line);
            if (node == null || !node.isObject()) {
                throw error("not a JSON object");
            }
            return node;
        } catch (JsonProcessingException e) {
            if (unterminatedLine) {
                truncatedLastLine = true;
                return null;
            }
            throw error("invalid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw error(e.getMessage());
        }
    }

    private byte[] nextLine() {
        lineBuffer.reset();
        try {
            while (true) {
                if (position == limit) {
                    limit = in.read(readBuffer);
                    position = 0;
                    if (limit <= 0) {
                        limit = 0;
                        break;
                    }
                }
                int start = position;
                while (position < limit && readBuffer[position] != '\n') {
                    position++;
                }
                lineBuffer.write(readBuffer, start, position - start);
                if (lineBuffer.size() > MAX_LINE_BYTES) {
                    lineNumber++;
                    throw error("line longer than " + MAX_LINE_BYTES + " bytes (not a sample file?)");
                }
                if (position < limit) {
                    position++;
                    lineNumber++;
                    return lineBuffer.toByteArray();
                }
            }
        } catch (IOException e) {
            throw new InputException("cannot read sample file " + file + ": " + e.getMessage(), e);
        }
        if (lineBuffer.size() == 0) {
            return null;
        }
        lineNumber++;
        unterminatedLine = true;
        return lineBuffer.toByteArray();
    }

    private static boolean isBlank(byte[] line) {
        for (byte b : line) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    private InputException error(String problem) {
        return new InputException("sample file " + file + " line " + lineNumber + ": " + problem);
    }
}
