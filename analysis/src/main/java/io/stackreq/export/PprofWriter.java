package io.stackreq.export;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import io.stackreq.export.pprof.Function;
import io.stackreq.export.pprof.Label;
import io.stackreq.export.pprof.Line;
import io.stackreq.export.pprof.Location;
import io.stackreq.export.pprof.Mapping;
import io.stackreq.export.pprof.Profile;
import io.stackreq.export.pprof.Sample;
import io.stackreq.export.pprof.ValueType;
import io.stackreq.model.Frame;

/**
 * Writes a {@link StackProfile} as a gzipped pprof profile ({@code profile.proto}). A Java frame
 * becomes a location with one line; its method a function named {@code package.Class.method}
 * (the name {@code report} uses) whose system name adds the descriptor. JFR records no source
 * file names, so functions have none. Every location belongs to one mapping that says functions
 * and lines are present, so readers do not try to symbolize addresses.
 */
public final class PprofWriter {
    private static final long MAPPING_ID = 1;

    private final Profile.Builder profile = Profile.newBuilder();
    private final IndexTable<String> strings = new IndexTable<>(0);
    private final IndexTable<Frame> locations = new IndexTable<>(1);
    private final IndexTable<FunctionKey> functions = new IndexTable<>(1);

    private PprofWriter() {
        string("");
    }

    /** Writes {@code stacks} to {@code out}, gzipped, and closes it. */
    public static void write(StackProfile stacks, OutputStream out) throws IOException {
        Profile profile = new PprofWriter().build(stacks);
        try (GZIPOutputStream gzip = new GZIPOutputStream(out, 1 << 16)) {
            profile.writeTo(gzip);
        }
    }

    private Profile build(StackProfile stacks) {
        StackProfile.Description description = stacks.description();
        for (StackProfile.ValueKind kind : description.valueKinds()) {
            profile.addSampleType(valueType(kind));
        }
        profile.setTimeNanos(description.startEpochNanos()).setDurationNanos(description.durationNanos());
        if (description.periodKind() != null) {
            profile.setPeriodType(valueType(description.periodKind())).setPeriod(description.period())
                    .setDefaultSampleType(string(description.periodKind().type()));
        }
        profile.addMapping(Mapping.newBuilder().setId(MAPPING_ID).setHasFunctions(true).setHasLineNumbers(true));
        for (Map.Entry<StackProfile.StackKey, long[]> entry : stacks.values().entrySet()) {
            Sample.Builder sample = Sample.newBuilder();
            for (Frame frame : entry.getKey().frames()) {
                sample.addLocationId(location(frame));
            }
            for (long value : entry.getValue()) {
                sample.addValue(value);
            }
            StackProfile.ThreadId thread = entry.getKey().thread();
            sample.addLabel(Label.newBuilder().setKey(string(StackProfile.ThreadId.NAME_KEY))
                    .setStr(string(thread.name())));
            thread.ids().forEach((key, id) -> sample.addLabel(Label.newBuilder().setKey(string(key)).setNum(id)));
            profile.addSample(sample);
        }
        return profile.build();
    }

    private ValueType valueType(StackProfile.ValueKind kind) {
        return ValueType.newBuilder().setType(string(kind.type())).setUnit(string(kind.unit())).build();
    }

    private long location(Frame frame) {
        return locations.indexOf(frame, f -> profile.addLocation(Location.newBuilder()
                .setId(profile.getLocationCount() + 1L).setMappingId(MAPPING_ID)
                .addLine(Line.newBuilder().setFunctionId(function(f)).setLine(Math.max(0, f.lineNumber())))));
    }

    private long function(Frame frame) {
        return functions.indexOf(FunctionKey.of(frame), key -> profile.addFunction(Function.newBuilder()
                .setId(profile.getFunctionCount() + 1L).setName(string(key.name()))
                .setSystemName(string(key.systemName()))));
    }

    private long string(String value) {
        return strings.indexOf(value, profile::addStringTable);
    }
}
