package io.stackreq.tests.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import io.stackreq.testapp.Report;
import jdk.jfr.consumer.RecordedEvent;

/** Assertions shared by the tests: ids against events, and the statistics identities. */
public final class Accounting {
    private Accounting() {
    }

    /** Every accepted id is the userData of exactly one event, and no event has another. */
    public static void assertEachIdExactlyOnce(long[] acceptedIds, Collection<Long> eventUserData, String what) {
        Map<Long, Integer> seen = new TreeMap<>();
        for (long userData : eventUserData) {
            seen.merge(userData, 1, Integer::sum);
        }
        TreeSet<Long> accepted = new TreeSet<>();
        for (long id : acceptedIds) {
            accepted.add(id);
        }
        List<Long> missing = new ArrayList<>();
        List<Long> duplicated = new ArrayList<>();
        for (long id : accepted) {
            Integer count = seen.get(id);
            if (count == null) {
                missing.add(id);
            } else if (count > 1) {
                duplicated.add(id);
            }
        }
        List<Long> unexpected = new ArrayList<>();
        for (long userData : seen.keySet()) {
            if (!accepted.contains(userData)) {
                unexpected.add(userData);
            }
        }
        if (!missing.isEmpty() || !duplicated.isEmpty() || !unexpected.isEmpty()) {
            fail(String.format("%s: %d accepted ids, %d events; missing %d %s; duplicated %d %s; not accepted %d %s",
                    what, accepted.size(), eventUserData.size(), missing.size(), head(missing), duplicated.size(),
                    head(duplicated), unexpected.size(), head(unexpected)));
        }
    }

    private static List<Long> head(List<Long> ids) {
        return ids.size() <= 20 ? ids : ids.subList(0, 20);
    }

    /**
     * The last statistics event of a run whose only requests came from the timers of the report:
     * accepted = emitted + dropped, nothing pending, and each counter matches what the callers
     * saw (NONE = accepted and not throttled, or throttled; OUT_OF_MEMORY = dropped).
     */
    public static void assertExactAccounting(RecordedEvent statistics, Report report, int eventsInFile) {
        String context = "statistics " + JfrFile.describeStatistics(statistics) + "\nreport:\n" + report;
        long accepted = statistics.getLong("accepted");
        long emitted = statistics.getLong("emitted");
        long dropped = statistics.getLong("dropped");
        long throttled = statistics.getLong("throttled");
        assertEquals(accepted, emitted + dropped, () -> "accepted != emitted + dropped; " + context);
        assertEquals(0, statistics.getLong("pending"), () -> "pending after the recording stopped; " + context);
        assertEquals(report.rc(110), dropped, () -> "dropped != requests that returned OUT_OF_MEMORY; " + context);
        assertEquals(report.rc(0) + report.rc(110), accepted + throttled,
                () -> "accepted + throttled != requests that returned NONE or OUT_OF_MEMORY; " + context);
        assertEquals(eventsInFile, emitted, () -> "emitted != jdk.StackTraceRequest events in the file; " + context);
        assertTrue(statistics.getLong("failed") <= emitted, () -> "failed > emitted; " + context);
    }

    /** userData of each event, in file order. */
    public static List<Long> userData(List<RecordedEvent> events) {
        List<Long> values = new ArrayList<>();
        for (RecordedEvent event : events) {
            values.add(event.getLong("userData"));
        }
        return values;
    }
}
