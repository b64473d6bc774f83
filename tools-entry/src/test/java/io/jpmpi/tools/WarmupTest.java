package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's own thread runs in Linux's SCHED_IDLE class and no other thread of the launcher does
 * (a scheduling policy is per thread). What it changes in a job's results (nothing): dist's WarmupIT.
 */
class WarmupTest {
    @Test
    void onlyTheWarmupsThreadRunsOnIdleCpuOnly() throws Exception {
        Path self = Path.of("/proc/thread-self");
        int mine = Warmup.policy(self);
        assertNotEquals(Warmup.SCHED_IDLE, mine, "the test's own thread is SCHED_IDLE already");
        boolean[] lowered = new boolean[1];
        int[] after = new int[1];
        Thread t = new Thread(() -> {
            lowered[0] = Warmup.lowestPriority();
            try {
                after[0] = Warmup.policy(self);
            } catch (IOException e) {
                after[0] = -1;
            }
        });
        t.start();
        t.join();
        assertTrue(lowered[0], "chrt --idle of the thread's own id did not take");
        assertEquals(Warmup.SCHED_IDLE, after[0]);
        assertEquals(mine, Warmup.policy(self), "the calling thread's policy changed");
    }
}
