package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.layering.tools.CountLevel;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A jar is a level whatever bytes its path has, as long as the file system took them: a 4-byte
 * UTF-8 character (an emoji, which JNI's modified UTF-8 used to mangle) in a UTF-8 and in the C
 * locale (whose file-system encoding, ASCII, cannot spell it: the runtime reads the jar through the
 * descriptor the dispatcher opened), and a byte that is not UTF-8 at all (0xff, set by a wrapper
 * script, since Java cannot spell it either). The level counts exactly on every rank.
 */
class JarPathIT {
    static final int K = 3;

    static Stream<Arguments> locales() {
        List<Arguments> all = new ArrayList<>();
        MpiRun.implementations().forEach(impl -> Stream.of("C.UTF-8", "C").forEach(l -> all.add(Arguments.of(impl, l))));
        return all.stream();
    }

    @ParameterizedTest(name = "{0} LC_ALL={1}")
    @MethodSource("locales")
    void emojiInThePath(Impl impl, String locale) throws IOException {
        Path dir = Files.createDirectories(MpiRun.RUNS_DIR.resolve("paths/\uD83D\uDE80"));
        Path jar = Files.copy(Path.of(Jars.of("jcount", CountLevel.class)), dir.resolve("jcount.jar"),
                StandardCopyOption.REPLACE_EXISTING);
        Result r = MpiRun.on(impl).ranks(2).java().levels(jar.toString()).env("LC_ALL", locale)
                .run("pingpong", Integer.toString(K)).assertSuccess();
        assertCounted(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aByteThatIsNotUtf8(Impl impl) throws IOException, InterruptedException {
        Path base = Files.createDirectories(MpiRun.RUNS_DIR.resolve("paths"));
        String jar = base + "/bad$(printf '\\377')/jcount.jar";
        Process mk = new ProcessBuilder("sh", "-c", "mkdir -p \"$(dirname \"" + jar + "\")\" && cp \"$0\" \"" + jar + "\"",
                Jars.of("jcount", CountLevel.class)).inheritIO().start();
        assertEquals(0, mk.waitFor());
        // The ranks run this script: it sets the list with the raw byte and becomes the program.
        Path script = base.resolve("with-raw-byte-" + impl.id + ".sh");
        Files.writeString(script, "#!/bin/sh\nJPMPI_TOOLS_ENTRY=\"" + jar + "\"\nexport JPMPI_TOOLS_ENTRY\nexec "
                + impl.file("pingpong") + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Result r = MpiRun.on(impl).ranks(2).java().preload().run(script.toString(), Integer.toString(K))
                .assertSuccess();
        assertCounted(r);
    }

    private static void assertCounted(Result r) {
        assertEquals(1, r.countOut(Pingpong.resultLine(2, K)), r::describe);
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("jcount", rank), r::describe);
        }
    }
}
