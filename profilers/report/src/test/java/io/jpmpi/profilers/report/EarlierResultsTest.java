package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.profile.Dumps;
import io.jpmpi.profilers.profile.RankDumps;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An earlier job's results in an output directory a new job writes into: moved aside whole, named
 * after their own time, nothing else touched; and a profile.json that is not of the job whose dumps
 * are beside it is not taken for that job's.
 */
class EarlierResultsTest {
    @TempDir
    Path dir;

    private Path file(String name, Instant mtime) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, name);
        Files.setLastModifiedTime(p, FileTime.from(mtime));
        return p;
    }

    private static String stamp(Instant t) {
        return DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(LocalDateTime.ofInstant(t, ZoneId.systemDefault()));
    }

    @Test
    void everyResultOfAnEarlierJobIsMovedAsideAndNothingElse() throws IOException {
        Instant old = Instant.parse("2026-11-20T10:00:00Z");
        Instant newest = Instant.parse("2026-11-20T10:00:07Z");
        for (String n : List.of("profile.json", "report.txt", "report.html", "hwc.txt", "mpit.json", "ranks/rank-0.bin",
                "sites/rank-0.tsv", "spawned-node1-42/profile.json")) {
            file(n, old);
        }
        for (String d : List.of("ranks", "sites", "spawned-node1-42")) { // a folder's time: its last file's
            Files.setLastModifiedTime(dir.resolve(d), FileTime.from(old));
        }
        Files.setLastModifiedTime(dir.resolve("report.html"), FileTime.from(newest));
        file("hpccinf.txt", old);           // the job's own input, and
        file("earlier-x/profile.json", old); // results set aside before: both left where they are
        file("hwc.json", old);

        EarlierResults.Moved m = EarlierResults.setAside(dir).orElseThrow();
        assertEquals(dir.resolve("earlier-" + stamp(newest)), m.to());
        assertEquals(List.of("profile.json", "report.txt", "report.html", "mpit.json", "hwc.json", "hwc.txt", "ranks",
                "sites", "spawned-node1-42"), m.names());
        assertEquals("profile.json, report.txt, report.html, mpit.json, hwc.json, hwc.txt, ranks/, sites/ and"
                + " spawned-node1-42/", m.list());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(m.to())));
        for (String n : m.names()) {
            assertFalse(Files.exists(dir.resolve(n), LinkOption.NOFOLLOW_LINKS), n);
            assertTrue(Files.exists(m.to().resolve(n), LinkOption.NOFOLLOW_LINKS), n);
        }
        assertEquals("ranks/rank-0.bin", Files.readString(m.to().resolve("ranks/rank-0.bin")));
        assertEquals("hpccinf.txt", Files.readString(dir.resolve("hpccinf.txt")));
        assertTrue(Files.isRegularFile(dir.resolve("earlier-x/profile.json")));
        // nothing left to move; results of the same second again: the next name
        assertTrue(EarlierResults.setAside(dir).isEmpty());
        file("profile.json", newest);
        EarlierResults.Moved again = EarlierResults.setAside(dir).orElseThrow();
        assertEquals(dir.resolve("earlier-" + stamp(newest) + "-2"), again.to());
        assertEquals("profile.json", again.list());
    }

    /** A link (a broken one here) is moved as the link it is, never followed. */
    @Test
    void aLinkIsMovedAsALink() throws IOException {
        Path target = Files.writeString(dir.resolveSibling(dir.getFileName() + "-target"), "not jpmpi's");
        Files.createSymbolicLink(dir.resolve("profile.json"), target);
        Files.createSymbolicLink(dir.resolve("hwc.json"), dir.resolve("nowhere"));
        EarlierResults.Moved m = EarlierResults.setAside(dir).orElseThrow();
        assertEquals(List.of("profile.json", "hwc.json"), m.names());
        assertTrue(Files.isSymbolicLink(m.to().resolve("profile.json")));
        assertTrue(Files.isSymbolicLink(m.to().resolve("hwc.json")));
        assertEquals("not jpmpi's", Files.readString(target));
        Files.delete(target);
    }

    @Test
    void noDirectoryNoResults() throws IOException {
        assertTrue(EarlierResults.setAside(dir.resolve("not-there")).isEmpty());
        assertTrue(EarlierResults.setAside(dir).isEmpty());
        assertEquals(List.of("earlier-"), List.of(EarlierResults.PREFIX));
        try (var left = Files.list(dir)) {
            assertEquals(0, left.count());
        }
    }

    /** jpmpi report's case: only the profile's own files go; the dumps and the other tools' files stay. */
    @Test
    void theProfileAloneForAMerge() throws IOException {
        Instant t = Instant.parse("2026-11-21T08:30:00Z");
        for (String n : List.of("profile.json", "report.txt", "hwc.txt", "ranks/rank-0.bin")) {
            file(n, t);
        }
        EarlierResults.Moved m = EarlierResults.setAsideProfile(dir).orElseThrow();
        assertEquals(List.of("profile.json", "report.txt"), m.names());
        assertEquals("profile.json and report.txt", m.list());
        assertTrue(Files.exists(dir.resolve("hwc.txt")));
        assertTrue(Files.exists(dir.resolve("ranks/rank-0.bin")));
    }

    /**
     * A profile.json beside dumps of its own job is the job's (the profile's Java level writes one
     * beside them); beside dumps of another job (another job id in rank 0's header), it is an earlier
     * one's, and the dumps are to be merged. A profile.json that does not read is taken as it is (its
     * reader refuses it).
     */
    @Test
    void aProfileOfAnotherJobThanTheDumpsIsMergedAgain() throws IOException {
        Dumps.writeAll(dir, 4);
        assertTrue(ProfileWriter.needsMerge(dir), "dumps and no profile.json");
        Profile p = RankDumps.merge(dir);
        ProfileWriter.writeProfile(p, dir);
        assertFalse(ProfileWriter.needsMerge(dir), "the profile of the dumps beside it");
        assertFalse(ProfileWriter.earlierThanDumps(dir));

        // a later job (job id 4712) wrote its dumps over the first one's
        Path ranks = dir.resolve("ranks");
        for (int r = 0; r < 4; r++) {
            ByteBuffer b = ByteBuffer.wrap(Dumps.dump(r, 4)).order(ByteOrder.LITTLE_ENDIAN);
            b.put(184, "4712".getBytes(StandardCharsets.US_ASCII)); // the jobid of Dumps' (version 1) header
            Files.write(ranks.resolve("rank-" + r + ".bin"), b.array());
        }
        assertTrue(ProfileWriter.earlierThanDumps(dir));
        assertTrue(ProfileWriter.needsMerge(dir));
        assertEquals("4712", RankDumps.merge(dir).job().id());

        Files.writeString(ProfileWriter.profileFile(dir), "{\"schema\": broken");
        assertFalse(ProfileWriter.needsMerge(dir), "a profile.json that does not read: its reader says why");
        Files.delete(ProfileWriter.profileFile(dir));
        Files.createSymbolicLink(ProfileWriter.profileFile(dir), dir.resolve("nowhere"));
        assertFalse(ProfileWriter.needsMerge(dir), "a broken link is there too");
    }
}
