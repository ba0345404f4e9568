package io.stackreq.reliability.support;

import java.util.ArrayList;
import java.util.List;

import io.stackreq.testapp.JvmtiError;

/**
 * The accounting identities, checked between what libchaos.so saw returned and what the
 * recording holds. Each check returns problems as lines (empty = holds), so a test reports every
 * broken identity at once.
 */
public final class Ledger {
    private Ledger() {
    }

    /**
     * Every id that returned NONE has exactly one event, no other id has one, and no event
     * carries a userData that was never handed out.
     */
    public static List<String> eachAcceptedIdExactlyOnce(ChaosResults results, RequestScan scan) {
        List<Long> missing = new ArrayList<>();
        List<Long> duplicated = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        long missingCount = 0;
        long duplicatedCount = 0;
        long unexpectedCount = 0;
        for (long id = 1; id <= results.count(); id++) {
            int events = scan.events(id);
            if (results.rc(id) == JvmtiError.NONE) {
                if (events == 0) {
                    missingCount++;
                    if (missing.size() < 20) {
                        missing.add(id);
                    }
                } else if (events > 1) {
                    duplicatedCount++;
                    if (duplicated.size() < 20) {
                        duplicated.add(id);
                    }
                }
            } else if (events != 0) {
                unexpectedCount++;
                if (unexpected.size() < 20) {
                    unexpected.add(id + "(rc " + results.rc(id) + ")");
                }
            }
        }
        List<String> problems = new ArrayList<>();
        if (missingCount > 0) {
            problems.add(missingCount + " accepted requests have no event, e.g. ids " + missing);
        }
        if (duplicatedCount > 0) {
            problems.add(duplicatedCount + " accepted requests have more than one event, e.g. ids " + duplicated);
        }
        if (unexpectedCount > 0) {
            problems.add(unexpectedCount + " refused requests have an event, e.g. " + unexpected);
        }
        if (scan.outOfRange > 0) {
            problems.add(scan.outOfRange + " events carry a userData never handed out, e.g. " + scan.outOfRangeSample);
        }
        return problems;
    }

    /** The event of every accepted request carries the OS thread that made the request. */
    public static List<String> eventThreadIsTheRequester(ChaosResults results, RequestScan scan) {
        long wrong = 0;
        List<String> examples = new ArrayList<>();
        for (long id = 1; id <= results.count(); id++) {
            if (results.rc(id) != JvmtiError.NONE || scan.events(id) == 0) {
                continue;
            }
            if (scan.osThread(id) != results.tid(id)) {
                wrong++;
                if (examples.size() < 10) {
                    examples.add("id " + id + ": requested on tid " + results.tid(id) + ", event thread os id "
                            + scan.osThread(id) + " (" + scan.threadName(id) + ")");
                }
            }
        }
        List<String> problems = new ArrayList<>();
        if (scan.withoutThread > 0) {
            problems.add(scan.withoutThread + " events have no eventThread");
        }
        if (wrong > 0) {
            problems.add(wrong + " events carry another thread than the requester, e.g. " + examples);
        }
        return problems;
    }

    /**
     * The last statistics event: accepted = emitted + dropped, nothing pending, emitted = events
     * in the file, and (when libchaos.so made every request of the run) accepted and dropped match
     * the return codes it saw.
     */
    public static List<String> statisticsExact(ChaosResults results, RequestScan scan, boolean onlyRequester) {
        List<String> problems = new ArrayList<>();
        if (scan.lastStatistics == null) {
            problems.add("no " + RequestScan.STATISTICS + " event");
            return problems;
        }
        long accepted = scan.statistic("accepted");
        long emitted = scan.statistic("emitted");
        long dropped = scan.statistic("dropped");
        String statistics = " [" + scan.describeStatistics() + "]";
        if (accepted != emitted + dropped) {
            problems.add("accepted " + accepted + " != emitted " + emitted + " + dropped " + dropped + statistics);
        }
        if (scan.statistic("pending") != 0) {
            problems.add("pending " + scan.statistic("pending") + " after the last flush" + statistics);
        }
        if (emitted != scan.requestEvents) {
            problems.add("emitted " + emitted + " != " + scan.requestEvents + " events in the file" + statistics);
        }
        if (onlyRequester) {
            long none = results.countWithRc(JvmtiError.NONE);
            long outOfMemory = results.countWithRc(JvmtiError.OUT_OF_MEMORY);
            if (dropped != outOfMemory) {
                problems.add("dropped " + dropped + " != " + outOfMemory + " requests that returned OUT_OF_MEMORY"
                        + statistics);
            }
            if (accepted + scan.statistic("throttled") != none + outOfMemory) {
                problems.add("accepted + throttled " + (accepted + scan.statistic("throttled")) + " != " + (none
                        + outOfMemory) + " requests that returned NONE or OUT_OF_MEMORY" + statistics);
            }
        }
        return problems;
    }

    /**
     * No request changed errno: libchaos.so sets it to a value no system call gives before each
     * request, and RequestStackTrace, called from signal handlers, must leave the interrupted
     * code's errno as it found it.
     */
    public static List<String> errnoKept(ChaosResults results) {
        String changed = results.counters.get("errnoChanged");
        if (changed == null) {
            return List.of("libchaos.so's counters lack errnoChanged: " + results.counters);
        }
        return Long.parseLong(changed) == 0 ? List.of()
                : List.of(changed + " requests changed the caller's errno (RequestStackTrace must keep it)");
    }
}
