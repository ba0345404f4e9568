package io.stackreq.export;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.google.protobuf.util.JsonFormat;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.Stack;
import io.opentelemetry.proto.profiles.v1development.ValueType;
import io.stackreq.model.Frame;

/**
 * Writes a {@link StackProfile} as an OTLP {@code ExportProfilesServiceRequest} of the profiles
 * signal ({@code v1development}, which still changes between releases). A profile has one sample
 * type there, so there is one profile per value kind, in the order of the value kinds, all
 * sharing the request's dictionary; a profile leaves out the stacks its value is 0 for. Frames,
 * functions and thread attributes are as in {@link PprofWriter}.
 */
public final class OtlpWriter {
    /** The instrumentation scope every profile is under. */
    public static final String SCOPE = "stackreq";

    private final ProfilesDictionary.Builder dictionary = ProfilesDictionary.newBuilder();
    // Index 0 of every table is its zero value: an index of 0 means "not set".
    private final IndexTable<String> strings = new IndexTable<>(0);
    private final IndexTable<Frame> locations = new IndexTable<>(1);
    private final IndexTable<FunctionKey> functions = new IndexTable<>(1);
    private final IndexTable<List<Frame>> stacks = new IndexTable<>(1);
    private final IndexTable<KeyValueAndUnit> attributes = new IndexTable<>(1);

    private OtlpWriter() {
        string("");
        dictionary.addMappingTable(Mapping.getDefaultInstance())
                .addLocationTable(Location.getDefaultInstance())
                .addFunctionTable(Function.getDefaultInstance())
                .addLinkTable(io.opentelemetry.proto.profiles.v1development.Link.getDefaultInstance())
                .addAttributeTable(KeyValueAndUnit.getDefaultInstance())
                .addStackTable(Stack.getDefaultInstance());
    }

    /** The request for {@code stacks}. */
    public static ExportProfilesServiceRequest request(StackProfile stacks) {
        return new OtlpWriter().build(stacks);
    }

    /** Writes {@code stacks} to {@code out} in the binary protobuf encoding, and closes it. */
    public static void writeBinary(StackProfile stacks, OutputStream out) throws IOException {
        try (out) {
            request(stacks).writeTo(out);
        }
    }

    /** Writes {@code stacks} to {@code out} as OTLP/JSON, and closes it. */
    public static void writeJson(StackProfile stacks, OutputStream out) throws IOException {
        try (Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
            JsonFormat.printer().omittingInsignificantWhitespace().appendTo(request(stacks), writer);
        }
    }

    private ExportProfilesServiceRequest build(StackProfile stacks) {
        StackProfile.Description description = stacks.description();
        List<Profile.Builder> profiles = new ArrayList<>();
        for (StackProfile.ValueKind kind : description.valueKinds()) {
            Profile.Builder profile = Profile.newBuilder().setSampleType(valueType(kind))
                    .setTimeUnixNano(description.startEpochNanos()).setDurationNano(description.durationNanos());
            if (description.periodKind() != null) {
                profile.setPeriodType(valueType(description.periodKind())).setPeriod(description.period());
            }
            profiles.add(profile);
        }
        for (Map.Entry<StackProfile.StackKey, long[]> entry : stacks.values().entrySet()) {
            int stack = stack(entry.getKey().frames());
            List<Integer> threadAttributes = threadAttributes(entry.getKey().thread());
            long[] values = entry.getValue();
            for (int i = 0; i < values.length; i++) {
                if (values[i] != 0) {
                    profiles.get(i).addSamples(Sample.newBuilder().setStackIndex(stack)
                            .addAllAttributeIndices(threadAttributes).addValues(values[i]));
                }
            }
        }
        ScopeProfiles.Builder scope = ScopeProfiles.newBuilder()
                .setScope(InstrumentationScope.newBuilder().setName(SCOPE));
        profiles.forEach(scope::addProfiles);
        return ExportProfilesServiceRequest.newBuilder()
                .addResourceProfiles(ResourceProfiles.newBuilder().addScopeProfiles(scope))
                .setDictionary(dictionary)
                .build();
    }

    private List<Integer> threadAttributes(StackProfile.ThreadId thread) {
        List<Integer> indices = new ArrayList<>(3);
        indices.add(attribute(StackProfile.ThreadId.NAME_KEY, AnyValue.newBuilder().setStringValue(thread.name())));
        thread.ids().forEach((key, id) -> indices.add(attribute(key, AnyValue.newBuilder().setIntValue(id))));
        return indices;
    }

    private int attribute(String key, AnyValue.Builder value) {
        KeyValueAndUnit attribute = KeyValueAndUnit.newBuilder().setKeyStrindex(string(key)).setValue(value).build();
        return attributes.indexOf(attribute, dictionary::addAttributeTable);
    }

    private ValueType valueType(StackProfile.ValueKind kind) {
        return ValueType.newBuilder().setTypeStrindex(string(kind.type())).setUnitStrindex(string(kind.unit())).build();
    }

    private int stack(List<Frame> frames) {
        return stacks.indexOf(frames, f -> {
            Stack.Builder stack = Stack.newBuilder();
            for (Frame frame : f) {
                stack.addLocationIndices(location(frame));
            }
            dictionary.addStackTable(stack);
        });
    }

    private int location(Frame frame) {
        return locations.indexOf(frame, f -> dictionary.addLocationTable(Location.newBuilder()
                .addLines(Line.newBuilder().setFunctionIndex(function(f)).setLine(Math.max(0, f.lineNumber())))));
    }

    private int function(Frame frame) {
        return functions.indexOf(FunctionKey.of(frame), key -> dictionary.addFunctionTable(Function.newBuilder()
                .setNameStrindex(string(key.name())).setSystemNameStrindex(string(key.systemName()))));
    }

    private int string(String value) {
        return strings.indexOf(value, dictionary::addStringTable);
    }
}
