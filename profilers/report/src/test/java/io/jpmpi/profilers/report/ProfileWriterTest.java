package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one way to a profile directory's files: the names, what each step writes, what it leaves alone. */
class ProfileWriterTest {
    @Test
    void writeAllWritesTheProfileAndBothReports(@TempDir Path dir) throws IOException {
        Profile p = Fixtures.fourRanks();
        String text = ProfileWriter.writeAll(p, dir);
        assertEquals(p, ProfileJson.read(dir.resolve(Reports.PROFILE)));
        assertEquals(text, Files.readString(dir.resolve(Reports.TEXT)));
        assertTrue(Files.readString(dir.resolve(Reports.HTML)).startsWith("<!DOCTYPE html>"));
        assertFalse(ProfileWriter.needsMerge(dir), "a directory with a profile.json needs no merge");
    }

    @Test
    void writeProfileAloneWritesNoReports(@TempDir Path dir) throws IOException {
        ProfileWriter.writeProfile(Fixtures.fourRanks(), dir);
        assertTrue(Files.isRegularFile(ProfileWriter.profileFile(dir)));
        assertFalse(Files.exists(dir.resolve(Reports.TEXT)));
        assertFalse(Files.exists(dir.resolve(Reports.HTML)));
    }

    @Test
    void theReportsWithoutHtmlAreTheTextOnly(@TempDir Path dir) throws IOException {
        String text = ProfileWriter.writeReports(Fixtures.fourRanks(), dir, false);
        assertEquals(text, Files.readString(dir.resolve(Reports.TEXT)));
        assertFalse(Files.exists(dir.resolve(Reports.HTML)));
        assertFalse(Files.exists(ProfileWriter.profileFile(dir)), "reports alone write no profile.json");
    }

    @Test
    void publishPutsTheRanksFileInPlaceThenTheReports(@TempDir Path dir) throws IOException {
        Profile p = Fixtures.fourRanks();
        Path assembled = dir.resolve(Reports.PROFILE + ".tmp");
        ProfileJson.write(p, assembled);
        ProfileWriter.publish(assembled, dir);
        assertFalse(Files.exists(assembled));
        assertEquals(p, ProfileJson.read(ProfileWriter.profileFile(dir)));
        // the reports are those of the whole profile: its rank rows name the hosts
        assertEquals(ProfileWriter.writeReports(p, Files.createDirectory(dir.resolve("again")), false),
                Files.readString(dir.resolve(Reports.TEXT)));
        assertTrue(Files.readString(dir.resolve(Reports.TEXT)).lines().anyMatch(l -> l.contains("hosts")));
        assertTrue(Files.isRegularFile(dir.resolve(Reports.HTML)));
    }

    /** A profile.json the ranks wrote gets the ranks' call sites once, named; then it is left alone. */
    @Test
    void addSitesNamesTheTablesOnceAndRewritesTheProfile(@TempDir Path dir) throws IOException {
        Profile p = Fixtures.fourRanks();
        assertEquals(p, ProfileWriter.addSites(p, dir), "no tables: nothing to add");
        assertFalse(Files.exists(ProfileWriter.profileFile(dir)));
        Files.createDirectories(dir.resolve("sites"));
        for (int rank = 0; rank < 4; rank++) {
            Files.writeString(dir.resolve("sites/rank-" + rank + ".tsv"), "# function\tmodule\toffset\taddress\tsymbol"
                    + "\tcalls\tseconds\tbytes\nMPI_Bcast\t" + dir.resolve("gone") + "\t0x10\t0x10\tf+0x4\t" + (rank + 1)
                    + "\t0.5\t8\n");
        }
        Profile q = ProfileWriter.addSites(p, dir);
        assertEquals(1, q.sites().sites().size());
        CallSites.Site s = q.sites().sites().get(0);
        assertEquals(List.of("MPI_Bcast", "f+0x4 (gone)", 10.0, 1.0, 0, 4.0, 3), List.of(s.function(), s.where(),
                s.calls().sum(), s.calls().min(), s.calls().minRank(), s.calls().max(), s.calls().maxRank()));
        assertTrue(q.sites().note().contains(dir.resolve("gone") + " is no longer there"), q.sites().note());
        assertEquals(q, ProfileJson.read(ProfileWriter.profileFile(dir)));
        assertSame(q, ProfileWriter.addSites(q, dir), "sites already there: left alone");
    }

    @Test
    void aDirectoryWithoutDumpsNeedsNoMerge(@TempDir Path dir) {
        assertFalse(ProfileWriter.needsMerge(dir));
    }
}
