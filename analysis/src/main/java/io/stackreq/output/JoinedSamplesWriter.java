package io.stackreq.output;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;

import io.stackreq.join.JoinListener;
import io.stackreq.join.JoinedSample;
import io.stackreq.model.Frame;
import io.stackreq.model.Sample;
import io.stackreq.model.StackEvent;

/**
 * {@code join -o}: one JSON object per line and per sample (per event without a sample file),
 * with the sample's fields, what the join found, and the stack, top frame first. Written as the
 * join streams, so memory does not grow with the number of samples.
 */
public final class JoinedSamplesWriter implements JoinListener, AutoCloseable {
    private final JsonGenerator json;
    private long written;

    public JoinedSamplesWriter(OutputStream out) {
        try {
            json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
            // One object per line: the root value separator is the newline.
            json.setPrettyPrinter(new MinimalPrettyPrinter("\n"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void accept(JoinedSample joined) {
        try {
            json.writeStartObject();
            json.writeStringField("status", joined.status().name().toLowerCase(Locale.ROOT));
            Sample sample = joined.sample();
            StackEvent event = joined.event();
            json.writeNumberField("userData", sample != null ? sample.userData() : event.userData());
            if (sample != null) {
                if (sample.tid() != Sample.UNKNOWN_TID) {
                    json.writeNumberField("tid", sample.tid());
                }
                json.writeNumberField("time", sample.time());
                json.writeNumberField("cpu", sample.cpu());
                json.writeStringField("event", sample.event());
                json.writeNumberField("period", sample.period());
                json.writeObjectFieldStart("deltas");
                for (Map.Entry<String, Long> delta : sample.deltas().entrySet()) {
                    json.writeNumberField(delta.getKey(), delta.getValue());
                }
                json.writeEndObject();
                json.writeNumberField("error", sample.error());
            }
            json.writeNumberField("weight", joined.weight());
            if (event != null) {
                json.writeNumberField("eventTime", event.startEpochNanos());
                json.writeStringField("thread", event.threadName());
                if (event.javaThreadId() != null) {
                    json.writeNumberField("javaThreadId", event.javaThreadId());
                }
                json.writeBooleanField("biased", event.biased());
                json.writeBooleanField("failed", event.failed());
                json.writeBooleanField("truncated", event.truncated());
                json.writeArrayFieldStart("stack");
                for (Frame frame : event.frames()) {
                    json.writeStartObject();
                    json.writeStringField("method", frame.qualifiedMethod());
                    json.writeStringField("descriptor", frame.descriptor());
                    json.writeNumberField("line", frame.lineNumber());
                    json.writeNumberField("bci", frame.bytecodeIndex());
                    json.writeStringField("type", frame.type());
                    json.writeEndObject();
                }
                json.writeEndArray();
            } else {
                json.writeNullField("stack");
            }
            json.writeEndObject();
            written++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        if (written > 0) {
            json.writeRaw('\n');
        }
        json.close();
    }
}
