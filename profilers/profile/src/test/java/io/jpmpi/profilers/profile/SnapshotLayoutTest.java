package io.jpmpi.profilers.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The snapshot header the recorder writes (snapshot.h, struct jp_header) and the one Snapshot
 * reads agree field by field, as the C compiler lays the struct out (src/test/c/snapshot_layout.c
 * prints offsetof and sizeof): a field moved, added or resized on one side only fails here.
 */
class SnapshotLayoutTest {
    @Test
    void javaReadsTheHeaderAtTheOffsetsTheCompilerChose() throws Exception {
        Path program = Path.of(System.getProperty("jpmpi.snapshot.layout"));
        assertTrue(Files.isExecutable(program), () -> program + " is missing (this module's test build makes it)");
        Process p = new ProcessBuilder(program.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        Map<String, Integer> c = new LinkedHashMap<>();
        out.lines().map(l -> l.split(" ")).forEach(w -> c.put(w[0], Integer.parseInt(w[1])));
        assertEquals(Snapshot.VERSION, c.remove("version_value"), "the snapshot version");
        assertEquals(Snapshot.HEADER, c.remove("sizeof"), "the header's size");
        assertEquals(c, Snapshot.HEADER_FIELDS, "every header field at the same offset, in the same order");
    }
}
