package io.stackreq.cli;

import java.util.List;

import io.stackreq.model.JfrSampleSpec;
import picocli.CommandLine.Option;

/** How to read a JFR file given as {@code --samples}: its sample events and their fields. */
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

    JfrSampleSpec spec() {
        return new JfrSampleSpec(eventTypes, key, weight);
    }
}
