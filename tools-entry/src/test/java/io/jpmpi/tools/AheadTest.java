package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The program checks of {@code jpmpi run} started while picocli reads the command line: the answer
 * is the one inspecting the program then gives (a real program and ldd), taken once, and only for the
 * very file that was inspected.
 */
class AheadTest {
    private static final Map<String, String> ENV = Map.of("PATH", System.getenv("PATH"));

    @AfterEach
    void forget() {
        Ahead.clear();
    }

    private static void startAndWait(String... args) throws InterruptedException {
        Optional<Thread> t = Ahead.start(args, ENV);
        assertTrue(t.isPresent(), () -> List.of(args).toString());
        t.get().join();
    }

    @Test
    void aRunsProgramIsInspectedAheadAndTakenOnce() throws Exception {
        Path program = Path.of(Impl.OPENMPI.file("pingpong"));
        startAndWait("run", "--tools", "profile", "--", "mpirun.openmpi", "-np", "2", program.toString(), "3");
        Optional<Application> ahead = Ahead.take(program);
        assertEquals(Optional.of(Application.inspectNow(program)), ahead);
        assertEquals(Optional.of(MpiImpl.OPENMPI), ahead.get().impl());
        assertEquals(Optional.empty(), Ahead.take(program), "taken twice");
    }

    @Test
    void aFileChangedSinceIsInspectedAgain(@TempDir Path dir) throws Exception {
        Path program = Files.copy(Path.of(Impl.MPICH.file("pingpong")), dir.resolve("pingpong"));
        startAndWait("run", "--", "mpiexec.hydra", "-n", "2", program.toString());
        Files.setLastModifiedTime(program, FileTime.fromMillis(Files.getLastModifiedTime(program).toMillis() - 60_000));
        assertEquals(Optional.empty(), Ahead.take(program));
        assertEquals(MpiImpl.MPICH, Application.inspect(program).impl().orElseThrow());
    }

    /** The run's take may come before the thread has inspected what it listed: it waits, every time. */
    @Test
    void aTakeRightAfterTheStartGetsTheInspection() {
        Path program = Path.of(Impl.OPENMPI.file("pingpong"));
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (int k = 0; k < 20; k++) {
                Ahead.start(new String[] {"run", "--", "mpirun.openmpi", "-np", "2", program.toString()}, ENV);
                assertEquals(Optional.of(MpiImpl.OPENMPI), Ahead.take(program).flatMap(Application::impl), "round " + k);
                Ahead.clear();
            }
        });
    }

    @Test
    void otherCommandLinesStartNothing() {
        for (List<String> args : List.of(List.<String>of(), List.of("report", "--", "x"), List.of("run", "--"),
                List.of("run", "mpirun", "./a.out"), List.of("--", "run"))) {
            assertEquals(Optional.empty(), Ahead.start(args.toArray(String[]::new), ENV), args::toString);
        }
    }
}
