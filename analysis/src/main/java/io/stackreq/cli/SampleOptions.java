package io.stackreq.cli;

import java.nio.file.Path;
import java.util.List;

import io.stackreq.join.JoinInputs;
import io.stackreq.model.JfrSampleFile;
import io.stackreq.model.JfrSampleSpec;
import io.stackreq.model.SampleFileReader;
import picocli.CommandLine.Option;

/**
 * Which samples and events to join: how to read a JFR file given as {@code --samples}, and whose
 * stack-trace events when several profilers requested them.
 */
final class SampleOptions {
    @Option(names = "--sample-event", paramLabel = "TYPE", split = ",",
            description = "With a JFR file as --samples: the event types that are the samples, repeatable or "
                    + "comma-separated (default: datadog.ExecutionSample and datadog.MethodSample, those the file "
                    + "holds)")
    List<String> eventTypes;

    @Option(names = "--key", paramLabel = "FIELD",
            description = "With a JFR file as --samples: the long field of the sample events that holds the userData "
                    + "passed to RequestStackTrace (default: " + JfrSampleSpec.DEFAULT_KEY + "); samples where it is "
                    + "0 were not delegated and are left out")
    String key;

    @Option(names = "--weight", paramLabel = "FIELD",
            description = "With a JFR file as --samples: weigh each sample by this numeric field of its event (e.g. "
                    + "weight; a duration is in ns) and name the metric after it (default: count the samples, "
                    + "metric '" + JfrSampleSpec.COUNT + "')")
    String weight;

    @Option(names = "--requester", paramLabel = "NAME",
            description = "Join only the stack-trace events requested from this library (the file name, e.g. "
                    + JfrSampleFile.DATADOG_LIBRARY + "; '' for events that name none), when several profilers "
                    + "requested stack traces in one JVM (default: the only requester, else the samples' own: "
                    + SampleFileReader.PERF_AGENT_LIBRARY + " for a perf agent sample file, "
                    + JfrSampleFile.DATADOG_LIBRARY + " for datadog.* events)")
    String requester;

    JoinInputs joinInputs(Path recording, Path samples, String metric) {
        return new JoinInputs(recording, samples, metric, new JfrSampleSpec(eventTypes, key, weight), requester);
    }
}
