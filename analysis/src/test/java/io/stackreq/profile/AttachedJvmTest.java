package io.stackreq.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** What profile --pid reads of a process before it attaches, and of the JVM after. */
class AttachedJvmTest {
    @Test
    void aJvmCatchesSigquitAndSleepDoesNot() {
        // SigCgt lines of a HotSpot JVM (JDK 25, seen here) and of sleep(1), from /proc/PID/status.
        assertTrue(AttachedJvm.catchesSigquit(List.of("Name:\tjava", "SigCgt:\t2000000101005ccf")));
        assertFalse(AttachedJvm.catchesSigquit(List.of("Name:\tsleep", "SigCgt:\t0000000000000000")));
        assertFalse(AttachedJvm.catchesSigquit(List.of("Name:\tx", "SigCgt:\t0000000000000002")));
        assertFalse(AttachedJvm.catchesSigquit(List.of("Name:\tno signal lines")));
    }

    @Test
    void featureReleaseOfOldAndNewVersionStrings() {
        assertEquals(8, AttachedJvm.featureOf("1.8"));
        assertEquals(17, AttachedJvm.featureOf("17"));
        assertEquals(25, AttachedJvm.featureOf("25"));
        assertEquals(0, AttachedJvm.featureOf("unknown"));
    }
}
