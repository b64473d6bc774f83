package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.layering.tools.ThreadThrower;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An exception a Java level's own thread does not catch (ThreadThrower: a thread started in
 * afterInit throws) is one line naming the level, not the JVM's three-line trace; the level goes
 * on counting, and the program's results and exit status are unchanged.
 */
class ToolThreadIT {
    static final int K = 3;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void oneLineNamingTheLevel(Impl impl) {
        String jar = Jars.of("thrower", ThreadThrower.class);
        Result r = MpiRun.on(impl).ranks(2).java().levels(jar).run("pingpong", Integer.toString(K)).assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(2, K)), r::describe);
        Pattern line = Pattern.compile("jpmpi \\(rank [01]\\): level 0 '" + Pattern.quote(jar) + "': uncaught "
                + "java.lang.IllegalStateException: thrown on purpose in a tool thread in its thread 'thrower'; that thread"
                + " ended, the level goes on");
        List<String> jpmpi = r.err().stream().filter(l -> l.startsWith("jpmpi")).toList();
        assertEquals(2, jpmpi.size(), r::describe);
        assertTrue(jpmpi.stream().allMatch(l -> line.matcher(l).matches()), r::describe);
        assertEquals(0, r.err().stream().filter(l -> l.contains("Exception in thread") || l.startsWith("\tat ")).count(),
                r::describe);
        for (int rank = 0; rank < 2; rank++) {
            String counted = "thrower rank " + rank + ": MPI_Send=" + K;
            assertEquals(1, r.err().stream().filter(counted::equals).count(), r::describe);
        }
    }
}
