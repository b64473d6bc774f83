package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.Job;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.profilers.report.Stat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jpmpi report DIR} in process: the reports of a good profile, one line for every bad one. */
class ReportCommandTest {
    /** Two ranks exchanging one message each way. */
    static Profile twoRanks() {
        double[] app = {2.5, 2.75};
        double[] mpi = {0.5, 0.25};
        double[] calls = {3, 3};
        double[] bytes = {1024, 1024};
        Stat sendCalls = Stat.of(new double[] {1, 1});
        FunctionProfile send = new FunctionProfile("MPI_Send", 2, 0.125, 2048, 0, 1e-5, 0.1,
                new FunctionProfile.PerRank(sendCalls, Stat.of(new double[] {0.1, 0.025}), Stat.of(bytes),
                        Stat.ZERO), new long[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
        FunctionProfile recv = new FunctionProfile("MPI_Recv", 2, 0.5, 0, 2048, 1e-5, 0.3,
                new FunctionProfile.PerRank(sendCalls, Stat.of(new double[] {0.3, 0.2}), Stat.ZERO, Stat.of(bytes)),
                new long[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
        FunctionProfile barrier = new FunctionProfile("MPI_Barrier", 2, 0.125, 0, 0, 1e-5, 0.1,
                new FunctionProfile.PerRank(sendCalls, Stat.of(new double[] {0.1, 0.025}), Stat.ZERO, Stat.ZERO),
                new long[] {2});
        double[] pct = {20, 100 * 0.25 / 2.75};
        return new Profile(Profile.SCHEMA, false, List.of(), new Job("42", "/home/me/pingpong", "openmpi 4.1.4", 1,
                "2026-11-21T10:00:00Z", 2.75), 2,
                new Profile.Summary(Stat.of(app), Stat.of(mpi), Stat.of(pct), Stat.of(calls), Stat.of(bytes),
                        Stat.of(bytes)),
                new Profile.Overhead(15, 6, 9e-8), List.of(recv, send, barrier),
                new long[] {2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4},
                new Profile.Blocks(new int[] {0, 1}, app, mpi, new long[][] {{0, 1}, {1, 0}},
                        new long[][] {{0, 1024}, {1024, 0}}),
                List.of(new Profile.RankRow(0, "node1", 100, 2.5, 0.5, 3, null),
                        new Profile.RankRow(1, "node1", 101, 2.75, 0.25, 3, null)),
                List.of(new Profile.SparseRow(new int[] {1}, new long[] {1}),
                        new Profile.SparseRow(new int[] {0}, new long[] {1})),
                List.of(new Profile.SparseRow(new int[] {1}, new long[] {1024}),
                        new Profile.SparseRow(new int[] {0}, new long[] {1024})));
    }

    /** One line on stderr saying {@code fragment}, nothing on stdout, no stack trace, BAD_PROFILE. */
    private static void refused(Cli r, String... fragments) {
        assertEquals(ExitCode.BAD_PROFILE.code, r.exit(), r::describe);
        assertEquals("", r.out(), r::describe);
        assertEquals(1, r.err().lines().count(), r::describe);
        assertTrue(r.err().startsWith("jpmpi: report: "), r::describe);
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r::describe);
        for (String f : fragments) {
            assertTrue(r.err().contains(f), () -> "expected '" + f + "'\n" + r.describe());
        }
    }

    @Test
    void writesBothReportsAndPrintsTheText(@TempDir Path dir) throws IOException {
        ProfileJson.write(twoRanks(), dir.resolve("profile.json"));
        String json = Files.readString(dir.resolve("profile.json"));
        Cli r = Cli.run("report", dir.toString());
        assertEquals(0, r.exit(), r::describe);
        assertEquals("", r.err(), r::describe);
        assertEquals(Files.readString(dir.resolve("report.txt")), r.out());
        assertTrue(r.out().contains("/home/me/pingpong"), r.out());
        assertTrue(r.out().contains("MPI_Recv"), r.out());
        assertTrue(Files.readString(dir.resolve("report.html")).contains("<svg class=\"plot\""));
        assertEquals(json, Files.readString(dir.resolve("profile.json")), "profile.json is left alone");
    }

    @Test
    void quietAndNoHtml(@TempDir Path dir) throws IOException {
        ProfileJson.write(twoRanks(), dir.resolve("profile.json"));
        Cli r = Cli.run("report", "--quiet", "--no-html", dir.toString());
        assertEquals(0, r.exit(), r::describe);
        assertEquals("", r.out() + r.err(), r::describe);
        assertTrue(Files.exists(dir.resolve("report.txt")));
        assertFalse(Files.exists(dir.resolve("report.html")));
    }

    @Test
    void help() {
        Cli r = Cli.run("report", "--help");
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().startsWith("Usage: jpmpi report"), r::describe);
        assertTrue(r.out().contains("--no-html") && r.out().contains("--quiet"), r::describe);
        assertTrue(r.out().contains("exit statuses: jpmpi --help"), r::describe);
        Cli top = Cli.run("--help");
        assertTrue(top.out().contains("  report "), "listed among the subcommands");
        assertTrue(top.out().contains(" 74  report: "), top::describe);
        Cli none = Cli.run("report");
        assertEquals(ExitCode.USAGE.code, none.exit(), none::describe);
        assertEquals(1, none.err().lines().count(), none::describe);
    }

    @Test
    void noProfile(@TempDir Path dir) throws IOException {
        refused(Cli.run("report", dir.resolve("missing").toString()), "missing: no such directory");
        Path file = Files.writeString(dir.resolve("file"), "x");
        refused(Cli.run("report", file.toString()), "file: not a directory");
        refused(Cli.run("report", dir.toString()), "has no profile.json and no ranks/rank-R.bin");
    }

    @Test
    void badProfiles(@TempDir Path dir) throws IOException {
        ProfileJson.write(twoRanks(), dir.resolve("profile.json"));
        String json = Files.readString(dir.resolve("profile.json"));
        Path file = dir.resolve("profile.json");
        Files.writeString(file, json.substring(0, json.length() / 2));
        refused(Cli.run("report", dir.toString()), file + ": truncated at line ", "(unexpected end of input)");
        Files.writeString(file, "{\"schema\":\"jpmpi-profile-1\",\"x\":" + "[".repeat(100_000));
        refused(Cli.run("report", dir.toString()), file + ": line 1, column ", "nesting depth");
        Files.writeString(file, json.replace("\"ranks\":2,", "\"ranks\":2147483647,"));
        refused(Cli.run("report", dir.toString()), "\"ranks\" must be an integer from 1 to 1048576, found 2147483647");
        Files.writeString(file, "");
        refused(Cli.run("report", dir.toString()), file + ": empty file");
        Files.delete(file);
        Files.createDirectory(file);
        refused(Cli.run("report", dir.toString()), "is a directory");
        assertFalse(Files.exists(dir.resolve("report.txt")), "no report from a bad profile");
    }

    /** Hostile files: each refused with one line naming the file and what it is, never a hang or a trace. */
    @Test
    void filesThatAreNotFiles(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("profile.json");
        Process mkfifo = new ProcessBuilder("mkfifo", json.toString()).inheritIO().start();
        assertEquals(0, mkfifo.waitFor(), "mkfifo");
        refused(Cli.run("report", dir.toString()), json + ": is not a regular file (a FIFO, socket or device)");
        Files.delete(json);
        Files.createSymbolicLink(json, json);
        refused(Cli.run("report", dir.toString()), json + ": a loop of symbolic links, not a profile.json");
        Files.delete(json);
        Files.createSymbolicLink(json, dir.resolve("nowhere"));
        refused(Cli.run("report", dir.toString()), json + ": a symbolic link to nothing");
        Files.delete(json);
        Path dump = Files.createDirectories(dir.resolve("ranks").resolve("rank-0.bin"));
        refused(Cli.run("report", dir.toString()), dump + ": is a directory, not a rank dump");
        Files.delete(dump);
        Files.createSymbolicLink(dump, Path.of("/dev/zero"));
        refused(Cli.run("report", dir.toString()), dump + ": is not a regular file");
        assertFalse(Files.exists(dir.resolve("report.txt")), "no report from a bad input");
    }

    @Test
    void rankDumpsThatAreNotDumps(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("ranks"));
        Files.writeString(dir.resolve("ranks/rank-0.bin"), "not a dump");
        refused(Cli.run("report", dir.toString()), "rank-0.bin");
        assertFalse(Files.exists(dir.resolve("profile.json")));
    }

    @Test
    void reportsThatCannotBeWritten(@TempDir Path dir) throws IOException {
        ProfileJson.write(twoRanks(), dir.resolve("profile.json"));
        Files.createDirectory(dir.resolve("report.txt"));
        Files.writeString(dir.resolve("report.txt/x"), "occupied");
        refused(Cli.run("report", dir.toString()), "cannot write the reports in " + dir);
    }
}
