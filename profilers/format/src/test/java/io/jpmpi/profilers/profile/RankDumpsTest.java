package io.jpmpi.profilers.profile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileBreakdown;
import io.jpmpi.profilers.report.ProfileFormatException;
import io.jpmpi.profilers.report.ProfileJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rank dumps merged into a profile, and every dump the recorder could not have written refused with one line. */
class RankDumpsTest {
    private static final int RANKS = 4;

    @TempDir
    Path dir;

    /** The message the dumps, rank 1's changed by {@code edit}, are refused with; it names {@code file}. */
    private String refused(String file, Consumer<ByteBuffer> edit) throws IOException {
        Path ranks = Dumps.writeAll(dir, RANKS);
        ByteBuffer b = ByteBuffer.wrap(Dumps.dump(1, RANKS)).order(ByteOrder.LITTLE_ENDIAN);
        edit.accept(b);
        Files.write(ranks.resolve("rank-1.bin"), b.array());
        return refused(ranks.resolve(file));
    }

    private String refused(Path file) {
        try {
            Profile p = RankDumps.merge(dir);
            return fail("merged: " + p.functions());
        } catch (ProfileFormatException e) {
            String m = e.getMessage();
            assertTrue(m.startsWith(file + ": "), m);
            assertFalse(m.contains("\n"), m);
            return m.substring(file.toString().length() + 2);
        } catch (Throwable t) {
            return fail("expected a ProfileFormatException, got " + t, t);
        }
    }

    @Test
    void goodDumpsMakeAProfileTheReaderTakes() throws IOException {
        Dumps.writeAll(dir, RANKS);
        Profile p = RankDumps.merge(dir);
        assertEquals(RANKS, p.ranks());
        assertFalse(p.partial());
        assertEquals(6, p.functions().size(), "MPI_Bcast was never called");
        FunctionProfile isend = p.functions().stream().filter(f -> f.name().equals("MPI_Isend")).findFirst()
                .orElseThrow();
        assertEquals(RANKS * 400, isend.calls());
        assertEquals(RANKS * 400 * 65536L, isend.bytesSent());
        // every rank's own figures per function (schema 2), as its dump has them
        for (int r = 0; r < RANKS; r++) {
            var mine = p.details().rankFunctions().get(r);
            assertEquals(6, mine.functions().size(), "rank " + r + " called 6 functions");
            assertEquals(400, mine.get("MPI_Isend").calls());
            assertEquals(400 * 65536L, mine.get("MPI_Isend").bytesSent());
            assertEquals(400 * 65536L, mine.get("MPI_Irecv").bytesRecv());
            assertEquals(null, mine.get("MPI_Bcast"));
        }
        // the dumps say nothing of the timer's resolution: one tick
        assertEquals(1 / Dumps.TICKS_PER_SECOND, p.details().timerSeconds());
        Path json = dir.resolve("profile.json");
        ProfileJson.write(p, json);
        assertEquals(p, ProfileJson.read(json));
    }

    /**
     * When rank 0 has written every rank's figures (RankDumps.finished, asked while the job ends): its
     * own dump at FINALIZE, every rank's dump, and finalize-0.txt, which it writes last, for more
     * than one rank; not before, and not for another state or a dump that does not read.
     */
    @Test
    void finishedWhenRankZeroHasWrittenEveryRanksFigures() throws IOException {
        assertFalse(RankDumps.finished(dir), "no dumps");
        Path ranks = Files.createDirectories(dir.resolve("ranks"));
        Files.write(ranks.resolve("rank-0.bin"), Dumps.dump(0, 3));
        assertFalse(RankDumps.finished(dir), "rank 0 only");
        Files.write(ranks.resolve("rank-2.bin"), Dumps.dump(2, 3));
        Files.writeString(ranks.resolve("finalize-0.txt"), "0.001\n");
        assertFalse(RankDumps.finished(dir), "rank 1 missing");
        Files.write(ranks.resolve("rank-1.bin"), Dumps.dump(1, 3));
        assertTrue(RankDumps.finished(dir));
        Files.delete(ranks.resolve("finalize-0.txt"));
        assertFalse(RankDumps.finished(dir), "before finalize-0.txt, which comes last");

        ByteBuffer flush = ByteBuffer.wrap(Dumps.dump(0, 1)).order(ByteOrder.LITTLE_ENDIAN);
        Files.write(ranks.resolve("rank-0.bin"), flush.array());
        assertTrue(RankDumps.finished(dir), "one rank: no finalize-0.txt");
        Files.writeString(ranks.resolve("finalize-0.txt"), "0.001\n");
        assertFalse(RankDumps.finished(dir), "one rank and a finalize-0.txt (an earlier job's)");
        Files.delete(ranks.resolve("finalize-0.txt"));
        flush.putInt(Snapshot.HEADER_FIELDS.get("state"), Snapshot.State.FLUSH.ordinal());
        Files.write(ranks.resolve("rank-0.bin"), flush.array());
        assertFalse(RankDumps.finished(dir), "a periodic dump, not the last");
        Files.write(ranks.resolve("rank-0.bin"), Arrays.copyOf(flush.array(), 100));
        assertFalse(RankDumps.finished(dir), "a dump cut short");
    }

    /** A job started by hand: rank 0's own command line and settings (ranks/run-0.txt) make the run. */
    @Test
    void rankZerosRunRecord() throws IOException {
        Path ranks = Dumps.writeAll(dir, RANKS);
        assertEquals(null, RankDumps.merge(dir).details().run(), "no run-0.txt: no run");
        byte[] record = ("a./halo\0a-n\0a100 200\0eJPMPI_TOOLS_ENTRY=libjpmpi-profile.so\0eJPMPI_OUTPUT_DIR=prof\0"
                + "xsomething else\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Files.write(ranks.resolve("run-0.txt"), record);
        var run = RankDumps.merge(dir).details().run();
        assertEquals(io.jpmpi.profilers.report.ProfileDetails.FROM_RANK_0, run.source());
        assertEquals(List.of("./halo", "-n", "100 200"), run.command());
        assertEquals("libjpmpi-profile.so", run.tools());
        assertEquals(dir.toAbsolutePath().normalize().toString(), run.output());
        assertEquals(java.util.Map.of("JPMPI_TOOLS_ENTRY", "libjpmpi-profile.so", "JPMPI_OUTPUT_DIR", "prof"),
                run.settings());
        assertEquals(0, run.wallSeconds());
        Profile p = RankDumps.merge(dir);
        ProfileJson.write(p, dir.resolve("profile.json"));
        assertEquals(p, ProfileJson.read(dir.resolve("profile.json")));
        RankDumps.remove(dir);
        assertFalse(Files.exists(ranks), "the run record goes with the dumps");
    }

    /**
     * Version 3 dumps: the breakdown of schema 3 merged (every rank's own start and finalize, rank 0's
     * whole finalize from ranks/finalize-0.txt, buffer bytes and communicator sizes summed over ranks),
     * read back from profile.json as written; finalize-0.txt goes with the dumps; a version 3 part the
     * recorder could not have written is refused with one line.
     */
    @Test
    void theThirdVersionsBreakdown() throws IOException {
        Path ranks = Files.createDirectories(dir.resolve("ranks"));
        for (int r = 0; r < RANKS; r++) {
            Files.write(ranks.resolve("rank-" + r + ".bin"), Dumps.version3(Dumps.dump(r, RANKS), 2_400_000L * (r + 1),
                    240_000));
        }
        Files.writeString(ranks.resolve("finalize-0.txt"), "0.0025\n");
        Profile p = RankDumps.merge(dir);
        ProfileBreakdown b = p.details().breakdown();
        assertEquals(0.004, b.cost().startSeconds().max(), 1e-12);
        assertEquals(RANKS - 1, b.cost().startSeconds().maxRank());
        assertEquals(0.0001, b.cost().finalizeSeconds().avg(), 1e-12);
        assertEquals(0.0025, b.cost().rank0FinalizeSeconds());
        ProfileBreakdown.FunctionDetail allreduce = b.get("MPI_Allreduce");
        assertEquals(RANKS * 200 * 8L, allreduce.bufferBytes());
        assertArrayEquals(new long[] {0, 0, RANKS * 200L}, allreduce.callsByComm());
        FunctionProfile isend = p.functions().stream().filter(f -> f.name().equals("MPI_Isend")).findFirst().orElseThrow();
        ProfileBreakdown.FunctionDetail sends = b.get("MPI_Isend");
        assertFalse(sends.collective());
        assertEquals(isend.timeSeconds(), sends.timeBySize()[17], 1e-9 * isend.timeSeconds());
        assertNull(b.get("MPI_Waitall"), "no bytes, not a collective: nothing to add");
        Path json = dir.resolve("profile.json");
        ProfileJson.write(p, json);
        assertEquals(p, ProfileJson.read(json));
        // refusals, each one line naming the dump
        int v3 = Dumps.v3At(RANKS);
        int first = v3 + Snapshot.DETAIL_HEAD;
        ByteBuffer good = ByteBuffer.wrap(Dumps.version3(Dumps.dump(1, RANKS), 1, 1)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals("offset " + (v3 + 20) + " (communicator-size buckets): 20, this jpmpi reads 21",
                refusedV3(good, b2 -> b2.putInt(v3 + 20, 20)));
        assertEquals("offset " + first + " (detail record 0): MPI_Bcast was never called",
                refusedV3(good, b2 -> b2.putInt(first, 6)));
        int calls = first + 16 + 8 * Dumps.BUCKETS + 8 * 2;
        assertEquals("offset " + (first + 16 + 8 * Dumps.BUCKETS) + " (MPI_Allreduce calls by communicator size): 201 is"
                + " more than its 200 calls", refusedV3(good, b2 -> b2.putLong(calls, 201)));
        assertTrue(refusedV3(good, b2 -> b2.putLong(first + 16, Long.MAX_VALUE / 2)).contains(
                "(MPI_Allreduce ticks by size): "), "more time by size than the function's");
        Files.write(ranks.resolve("rank-1.bin"), good.array());
        Files.writeString(ranks.resolve("finalize-0.txt"), "soon");
        assertEquals("\"soon\" is not a number of seconds from 0 to 1.0E9", refused(ranks.resolve("finalize-0.txt")));
        Files.writeString(ranks.resolve("finalize-0.txt"), "0.0025\n");
        RankDumps.remove(dir);
        assertFalse(Files.exists(ranks), "finalize-0.txt goes with the dumps");
    }

    /** The refusal of the version 3 dump {@code good} as rank 1's, changed by {@code edit} (on a copy). */
    private String refusedV3(ByteBuffer good, Consumer<ByteBuffer> edit) throws IOException {
        Path ranks = dir.resolve("ranks");
        ByteBuffer b = ByteBuffer.wrap(good.array().clone()).order(ByteOrder.LITTLE_ENDIAN);
        edit.accept(b);
        Files.write(ranks.resolve("rank-1.bin"), b.array());
        return refused(ranks.resolve("rank-1.bin"));
    }

    @Test
    void theTimersResolutionIsRankZeros() throws IOException {
        Path ranks = Dumps.writeAll(dir, RANKS);
        ByteBuffer b = ByteBuffer.wrap(Dumps.version2(Dumps.dump(0, RANKS))).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(240, 24); // version 2's timer_ticks (version 1 has none)
        Files.write(ranks.resolve("rank-0.bin"), b.array());
        assertEquals(24 / Dumps.TICKS_PER_SECOND, RankDumps.merge(dir).details().timerSeconds());
        ByteBuffer one = ByteBuffer.wrap(Dumps.version2(Dumps.dump(1, RANKS))).order(ByteOrder.LITTLE_ENDIAN);
        one.putLong(240, 2_400_001);
        Files.write(ranks.resolve("rank-1.bin"), one.array());
        assertEquals("offset 240 (timer ticks): 2400001 ticks at 2.4E9 per second is more than 1 ms",
                refused(ranks.resolve("rank-1.bin")));
    }

    @Test
    void aMissingRankMakesAPartialProfile() throws IOException {
        Files.delete(Dumps.writeAll(dir, RANKS).resolve("rank-2.bin"));
        Profile p = RankDumps.merge(dir);
        assertTrue(p.partial());
        assertEquals("rank 2: no figures (no dump)", p.partialReasons().getFirst());
        assertEquals(List.of(), p.details().rankFunctions().get(2).functions());
        ProfileJson.write(p, dir.resolve("profile.json"));
        assertEquals(p, ProfileJson.read(dir.resolve("profile.json")));
    }

    @Test
    void clockRatesAndCostsThatCannotBe() throws IOException {
        assertEquals("offset 48 (ticks per second): 1.0E-300 is not a plausible clock rate (1000000.0 to 1.0E11)",
                refused("rank-1.bin", b -> b.putDouble(48, 1e-300)));
        assertTrue(refused("rank-1.bin", b -> b.putDouble(48, Double.NaN)).startsWith("offset 48 (ticks per second)"));
        assertEquals("offset 56 (cost per call): -4.99999991E8 ns is not from 0 to 1000000.0",
                refused("rank-1.bin", b -> b.putDouble(56, -499999991.0)));
        assertTrue(refused("rank-1.bin", b -> b.putDouble(56, Double.NaN)).startsWith("offset 56 (cost per call)"));
        assertEquals("offset 72 (application time): 9223372036854775807 ticks at 2.4E9 per second is more than 1.0E9 s",
                refused("rank-1.bin", b -> b.putLong(72, Long.MAX_VALUE)));
    }

    @Test
    void countsThatDoNotFit() throws IOException {
        int calls = Dumps.statAt(0, Snapshot.CALLS);
        assertEquals("offset " + calls + " (MPI_Allreduce calls): 18446744073709551615 is more than 2^63-1",
                refused("rank-1.bin", b -> b.putLong(calls, -1)));
        // 2^63-1 calls of one function: the rank's calls no longer add up.
        String m = refused("rank-1.bin", b -> {
            b.putLong(calls, Long.MAX_VALUE);
            b.putLong(Dumps.statAt(0, Snapshot.TICKS), b.getLong(Dumps.statAt(0, Snapshot.MAX)));
        });
        assertTrue(m.endsWith("(all functions' calls): add up to more than 2^63-1"), m);
        // the names made of parts (function, bucket or rank number) only when a message needs them
        int bucket = Dumps.bucketAt(5, 3);
        assertEquals("offset " + bucket + " (MPI_Comm_rank size bucket 3): 18446744073709551615 is more than 2^63-1",
                refused("rank-1.bin", b -> b.putLong(bucket, -1)));
        int messages = Dumps.matrixAt(3, 0);
        assertEquals("offset " + messages + " (messages to rank 3): 18446744073709551615 is more than 2^63-1",
                refused("rank-1.bin", b -> b.putLong(messages, -1)));
    }

    @Test
    void figuresThatDisagree() throws IOException {
        int min = Dumps.statAt(4, Snapshot.MIN);
        assertTrue(refused("rank-1.bin", b -> b.putLong(min, b.getLong(min + 8) + 1))
                .startsWith("offset " + min + " (MPI_Waitall shortest call): "), "the shortest call above the longest");
        int ticks = Dumps.statAt(6, Snapshot.TICKS);
        assertEquals("offset " + ticks + " (MPI_Bcast ticks): 5 for a function never called",
                refused("rank-1.bin", b -> b.putLong(ticks, 5)));
        int bucket = Dumps.bucketAt(5, 3);
        assertEquals("offset " + bucket + " (MPI_Comm_rank size bucket 3): more calls in the size buckets than the 1"
                + " calls", refused("rank-1.bin", b -> b.putLong(bucket, 2)));
        int bytes = Dumps.matrixAt(3, 1);
        assertEquals("offset " + bytes + " (bytes to rank 3): 7 without a message",
                refused("rank-1.bin", b -> b.putLong(bytes, 7)));
    }

    @Test
    void headersThatAreNotTheRecorders() throws IOException {
        assertEquals("offset 8 (version): 4 is not from 1 to 3 (the versions this jpmpi reads)",
                refused("rank-1.bin", b -> b.putInt(8, 4)));
        assertEquals("offset 16 (number of functions): 70000 is not from 1 to 4096",
                refused("rank-1.bin", b -> b.putInt(16, 70000)));
        assertEquals("offset 20 (number of size buckets): 64 is not from 1 to 48",
                refused("rank-1.bin", b -> b.putInt(20, 64)));
        assertEquals("offset 32 (state): 9 is no state the recorder writes (0 to 6)",
                refused("rank-1.bin", b -> b.putInt(32, 9)));
        assertEquals("offset 28 (world size): 16777216 is not from 1 to 1048576",
                refused("rank-1.bin", b -> b.putInt(28, 1 << 24)));
        assertEquals("offset 40 (pid): 18446744073709551615 is more than 2^63-1",
                refused("rank-1.bin", b -> b.putLong(40, -1)));
        assertEquals("offset 0 (magic): not a jpmpi rank dump (no \"JPMPIPR1\" at its start)",
                refused("rank-1.bin", b -> b.put(0, (byte) 'X')));
        int second = Snapshot.HEADER + Snapshot.NAME;
        assertEquals("offset " + second + " (name of function 1): \"MPI_Allreduce\" appears twice",
                refused("rank-1.bin", b -> b.put(second, Arrays.copyOf("MPI_Allreduce".getBytes(), Snapshot.NAME))));
        assertEquals("offset " + second + " (name of function 1): empty",
                refused("rank-1.bin", b -> b.put(second, (byte) 0)));
    }

    /**
     * A rank whose table of function names differs from rank 0's (another function where rank 0 has
     * MPI_Allreduce's neighbour) is another job's: refused. A merge reads a table once and compares the
     * next dumps' bytes with it (Snapshot), so the good dumps merge as before around that refusal.
     */
    @Test
    void anotherTableOfFunctionsIsAnotherJobs() throws IOException {
        Dumps.writeAll(dir, RANKS);
        assertEquals(RANKS, RankDumps.merge(dir).ranks());
        int second = Snapshot.HEADER + Snapshot.NAME;
        String why = refused("rank-1.bin", b -> b.put(second, Arrays.copyOf("MPI_Zzz".getBytes(), Snapshot.NAME)));
        assertTrue(why.startsWith("other functions than "), why);
        Dumps.writeAll(dir, RANKS);
        Profile again = RankDumps.merge(dir);
        assertEquals(RANKS, again.ranks());
        assertEquals(6, again.functions().size());
    }

    @Test
    void sizesThatDoNotAgree() throws IOException {
        Path ranks = Dumps.writeAll(dir, RANKS);
        byte[] d = Dumps.dump(1, RANKS);
        Files.write(ranks.resolve("rank-1.bin"), Arrays.copyOf(d, d.length - 1));
        assertTrue(refused(ranks.resolve("rank-1.bin")).startsWith((d.length - 1) + " bytes, truncated: its header"));
        Files.write(ranks.resolve("rank-1.bin"), Arrays.copyOf(d, d.length + 8));
        assertTrue(refused(ranks.resolve("rank-1.bin")).startsWith((d.length + 8) + " bytes, longer than a dump"));
        Files.write(ranks.resolve("rank-1.bin"), Dumps.dump(1, 8));
        assertEquals("rank 1 of 8 ranks, " + ranks.resolve("rank-0.bin") + " of 4 (dumps of different jobs or jpmpi"
                + " versions?)", refused(ranks.resolve("rank-1.bin")));
    }

    /**
     * An earlier job of 8 ranks wrote into the same directory, by hand (jpmpi run would have moved its
     * results aside): a job of 4 replaces ranks 0 to 3 only. Ranks 4 to 7 cannot be of rank 0's job
     * and are left out; the profile is the 4 ranks' alone, as in a directory of their own.
     */
    @Test
    void dumpsOfRanksRankZerosJobDoesNotHaveAreLeftOut(@TempDir Path alone) throws IOException {
        Dumps.writeAll(dir, 8);
        Dumps.writeAll(dir, RANKS);
        Profile p = RankDumps.merge(dir);
        assertEquals(RANKS, p.ranks());
        Dumps.writeAll(alone, RANKS);
        assertEquals(RankDumps.merge(alone), p);
        // rank 0 missing: nothing says which job the others are of, and they are refused as before
        Files.delete(dir.resolve("ranks/rank-0.bin"));
        assertTrue(refused(dir.resolve("ranks/rank-4.bin")).endsWith("(dumps of different jobs or jpmpi versions?)"));
    }

    /** The job rank 0's dump is of, as a profile of it names the job; none without rank 0's dump. */
    @Test
    void theJobOfRankZerosDump() throws IOException {
        assertTrue(RankDumps.job(dir).isEmpty());
        Dumps.writeAll(dir, RANKS);
        RankDumps.Job job = RankDumps.job(dir).orElseThrow();
        assertEquals(new RankDumps.Job("4711", "/home/me/halo", "2026-11-18T11:06:40Z"), job);
        assertEquals(job, RankDumps.Job.of(RankDumps.merge(dir)));
        Files.delete(dir.resolve("ranks/rank-0.bin"));
        assertTrue(RankDumps.job(dir).isEmpty());
    }

    @Test
    void namesAndRanksMustMatch() throws IOException {
        Path ranks = Dumps.writeAll(dir, RANKS);
        // Two dumps of rank 0: one of them under rank 1's name.
        Files.write(ranks.resolve("rank-1.bin"), Dumps.dump(0, RANKS));
        assertEquals("holds the figures of rank 0, not of rank 1 (its name)", refused(ranks.resolve("rank-1.bin")));
        Files.write(ranks.resolve("rank-1.bin"), Dumps.dump(1, RANKS));
        for (String name : new String[] {"rank-00.bin", "rank-01.bin", "rank-99999999999.bin", "rank-x.bin",
            "rank--1.bin", "rank-1048576.bin"}) {
            Path odd = ranks.resolve(name);
            Files.write(odd, Dumps.dump(0, RANKS));
            assertEquals("not the name of a rank dump (rank-<R>.bin, R a rank from 0 to 1048575 without leading zeros)",
                    refused(odd));
            Files.delete(odd);
        }
        assertEquals(RANKS, RankDumps.merge(dir).ranks());
    }

    @Test
    void sumsOverRanksThatDoNotFit() throws IOException {
        Path ranks = Dumps.writeAll(dir, 2);
        int calls = Dumps.statAt(5, Snapshot.CALLS);
        for (int r = 0; r < 2; r++) {
            ByteBuffer b = ByteBuffer.wrap(Dumps.dump(r, 2)).order(ByteOrder.LITTLE_ENDIAN);
            b.putLong(calls, Long.MAX_VALUE / 2 + 1);
            b.putLong(Dumps.bucketAt(5, 0), 0);
            Files.write(ranks.resolve("rank-" + r + ".bin"), b.array());
        }
        assertEquals("with it, the ranks' MPI_Comm_rank calls add up to more than 2^63-1",
                refused(ranks.resolve("rank-1.bin")));
    }
}
