package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** profile.json written in pieces and whole, read back, and refused with one line when it is bad. */
class ProfileJsonTest {
    private static final String NAME = "profile.json";

    private static String text(Profile p) throws IOException {
        StringWriter w = new StringWriter();
        ProfileJson.write(p, w);
        return w.toString();
    }

    private static Profile parse(String json) throws IOException {
        return ProfileJson.read(NAME, new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
    }

    /** The one-line message {@code json} is refused with. */
    private static String refused(String json) {
        return refused(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String refused(byte[] json) {
        return refusedFrom(() -> ProfileJson.read(NAME, new ByteArrayInputStream(json)));
    }

    private interface Read {
        Profile read() throws IOException;
    }

    private static String refusedFrom(Read read) {
        try {
            Profile p = read.read();
            return fail("accepted: " + p.ranks() + " ranks");
        } catch (ProfileFormatException e) {
            String m = e.getMessage();
            assertTrue(m.startsWith(NAME + ": "), m);
            assertFalse(m.contains("\n") || m.contains("\r"), "not one line: " + m);
            assertTrue(m.length() < 400, "too long: " + m);
            return m;
        } catch (Throwable t) {
            return fail("expected a ProfileFormatException, got " + t, t);
        }
    }

    /** {@code json} with the one occurrence of {@code from} replaced. */
    private static String edit(String json, String from, String to) {
        int at = json.indexOf(from);
        assertTrue(at >= 0, "no " + from);
        assertEquals(-1, json.indexOf(from, at + 1), "more than one " + from);
        return json.substring(0, at) + to + json.substring(at + from.length());
    }

    // --- writing and reading back --------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 100})
    void writeThenReadGivesTheSameProfile(int ranks, @TempDir Path dir) throws IOException {
        for (boolean partial : new boolean[] {false, true}) {
            Profile p = Fixtures.ring(ranks, partial);
            Path file = dir.resolve("profile.json");
            ProfileJson.write(p, file);
            Profile back = ProfileJson.read(file);
            assertEquals(p, back);
            assertEquals(p.hashCode(), back.hashCode());
            // And again: what was read writes the same bytes.
            assertEquals(Files.readString(file), text(back));
        }
    }

    /** A sampled function's timed calls and time error go out and come back; without them, every call timed. */
    @Test
    void sampledTimingRoundTrips(@TempDir Path dir) throws IOException {
        Profile p = Fixtures.fourRanks();
        List<FunctionProfile> fs = new ArrayList<>(p.functions());
        FunctionProfile f = fs.get(0);
        fs.set(0, new FunctionProfile(f.name(), f.calls(), f.timeSeconds(), f.bytesSent(), f.bytesRecv(),
                f.minCallSeconds(), f.maxCallSeconds(), f.perRank(), f.histogram(), f.calls() / 2,
                f.timeSeconds() / 100));
        Profile sampled = Fixtures.withFunctions(p, fs);
        Path file = dir.resolve("profile.json");
        ProfileJson.write(sampled, file);
        Profile back = ProfileJson.read(file);
        assertEquals(sampled, back);
        assertTrue(back.functions().get(0).sampled());
        assertTrue(Files.readString(file).contains("\"timed_calls\":" + f.calls() / 2));
        for (FunctionProfile g : ProfileJson.read(file).functions().subList(1, fs.size())) {
            assertTrue(!g.sampled() && g.timedCalls() == g.calls() && g.timeErrorSeconds() == 0, g::toString);
        }
        String more = Files.readString(file).replace("\"timed_calls\":" + f.calls() / 2, "\"timed_calls\":"
                + (f.calls() + 1));
        String why = refused(more);
        assertTrue(why.contains(".timed_calls\" must be at most the function's calls, " + f.calls()), why);
    }

    @Test
    void equalsLooksIntoArrays() {
        Profile a = Fixtures.fourRanks();
        Profile b = Fixtures.fourRanks();
        assertEquals(a, b);
        b.histogram()[0]++;
        assertNotEquals(a, b);
        b.histogram()[0]--;
        b.blocks().bytes()[0][1]++;
        assertNotEquals(a, b);
        b.blocks().bytes()[0][1]--;
        b.messages().get(0).values()[0]++;
        assertNotEquals(a, b);
        b.messages().get(0).values()[0]--;
        b.functions().get(0).histogram()[0]++;
        assertNotEquals(a, b);
    }

    @Test
    void theFileIsTheConcatenationOfThePieces(@TempDir Path dir) throws IOException {
        for (boolean functions : new boolean[] {false, true}) {
            Profile full = Fixtures.fourRanks();
            Profile p = functions ? full : full.withDetails(ProfileDetails.NONE);
            assertEquals(concatenation(p), Files.readString(writeTo(p, dir.resolve(functions + ".json"))));
            assertEquals(p, parse(concatenation(p)));
        }
    }

    private static Path writeTo(Profile p, Path file) throws IOException {
        ProfileJson.write(p, file);
        return file;
    }

    /** The pieces as the profile's Java level puts them together, with schema 2's functions if p has them. */
    private static String concatenation(Profile p) {
        StringBuilder b = new StringBuilder(ProfileJson.head(p));
        for (int r = 0; r < p.ranks(); r++) {
            b.append(ProfileJson.rankRow(p.rankRows().get(r), r == p.ranks() - 1));
        }
        b.append(ProfileJson.middle());
        for (int r = 0; r < p.ranks(); r++) {
            b.append(ProfileJson.sparseRow(p.messages().get(r), r == p.ranks() - 1));
        }
        b.append(ProfileJson.middle2());
        for (int r = 0; r < p.ranks(); r++) {
            b.append(ProfileJson.sparseRow(p.bytes().get(r), r == p.ranks() - 1));
        }
        List<ProfileDetails.RankFunctions> fns = p.details().rankFunctions();
        if (fns == null) {
            return b.append(ProfileJson.tail()).toString();
        }
        b.append(ProfileJson.middle3());
        for (int r = 0; r < p.ranks(); r++) {
            b.append(ProfileJson.rankFunctionsRow(fns.get(r), r == p.ranks() - 1));
        }
        return b.append(ProfileJson.tail2()).toString();
    }

    @Test
    void thePiecesHaveTheDocumentedShape() {
        Profile p = Fixtures.fourRanks();
        String head = ProfileJson.head(p);
        assertTrue(head.startsWith("{\"schema\":\"jpmpi-profile-3\","), head);
        assertTrue(head.endsWith("\"rank_rows\":[\n"), head);
        assertEquals("],\"matrix\":{\"messages\":[\n", ProfileJson.middle());
        assertEquals("],\"bytes\":[\n", ProfileJson.middle2());
        assertEquals("]}}\n", ProfileJson.tail());
        Profile.RankRow row = new Profile.RankRow(3, "node1", 1234, 12.4, 3.1, 30000, null);
        assertEquals("{\"rank\":3,\"host\":\"node1\",\"pid\":1234,\"app_s\":12.4,\"mpi_s\":3.1,\"calls\":30000,"
                + "\"partial\":null},\n", ProfileJson.rankRow(row, false));
        assertTrue(ProfileJson.rankRow(row, true).endsWith("null}\n"));
        Profile.SparseRow sparse = new Profile.SparseRow(new int[] {1, 3}, new long[] {100, 819200});
        assertEquals("[[1,100],[3,819200]],\n", ProfileJson.sparseRow(sparse, false));
        assertEquals("[[1,100],[3,819200]]\n", ProfileJson.sparseRow(sparse, true));
        assertEquals("[]\n", ProfileJson.sparseRow(Profile.SparseRow.EMPTY, true));
        // Keys in the documented order.
        String json = ProfileJson.head(p);
        int at = -1;
        for (String key : List.of("schema", "partial", "partial_reasons", "job", "ranks", "summary", "overhead",
                "functions", "histogram", "blocks", "rank_rows")) {
            int next = json.indexOf("\"" + key + "\":", at);
            assertTrue(next > at, key);
            at = next;
        }
    }

    @Test
    void piecesAreAsciiSoTheirLengthIsTheirSizeInBytes() throws IOException {
        Profile p0 = Fixtures.fourRanks();
        Profile p = Fixtures.withJob(p0, new Job("j\u00e9b", "/home/m\u00e9/\uD83D\uDE80 halo\u0001\"\\",
                "mpi \u2014 x", 1, "2026-11-21T10:00:00Z", p0.job().wallSeconds()));
        List<Profile.RankRow> rows = new ArrayList<>(p.rankRows());
        Profile.RankRow r1 = rows.get(1);
        rows.set(1, new Profile.RankRow(1, "n\u0153ud-\uD800", 1, r1.appSeconds(), r1.mpiSeconds(), r1.calls(),
                "t\u00e9\n"));
        p = Fixtures.withReasons(Fixtures.withRows(p, rows), List.of("rank 1: t\u00e9\n"));
        String json = text(p);
        for (int i = 0; i < json.length(); i++) {
            assertTrue(json.charAt(i) < 0x80, () -> "non-ASCII in " + json);
        }
        assertEquals(json.length(), json.getBytes(StandardCharsets.UTF_8).length);
        assertEquals(p, parse(json));
    }

    @Test
    void theJobStepIsWrittenWhereOneIsNamedAndReadBack() throws IOException {
        Profile p0 = Fixtures.fourRanks();
        Job j = p0.job();
        Profile stepped = Fixtures.withJob(p0, new Job(j.id(), j.executable(), j.mpi(), j.hosts(), j.start(),
                j.wallSeconds(), "batch"));
        String json = text(stepped);
        assertTrue(json.contains("\"id\":\"4711\",\"step\":\"batch\","), json);
        assertEquals("batch", parse(json).job().step());
        assertEquals(stepped, parse(json));
        String none = text(p0);
        assertFalse(none.contains("\"step\""), none);
        assertEquals(null, parse(none).job().step());
        Exception e = assertThrows(ProfileFormatException.class,
                () -> parse(json.replace("\"step\":\"batch\"", "\"step\":0")));
        assertTrue(e.getMessage().contains("step"), e::getMessage);
    }

    @Test
    void noRowsIsStillJson() throws IOException {
        Profile p = Fixtures.withoutRows(Fixtures.fourRanks());
        String json = text(p);
        assertTrue(json.endsWith("\"rank_rows\":[\n],\"matrix\":{\"messages\":[\n],\"bytes\":[\n]}}\n"), json);
        try (JsonParser parser = new JsonFactory().createParser(json)) {
            while (parser.nextToken() != null) {
                parser.skipChildren();
            }
        }
        // The reader wants one row per rank.
        assertTrue(refused(json).contains("\"rank_rows\" has 0 rows, \"ranks\" is 4"), refused(json));
    }

    @Test
    void doublesAreShortestRoundTripAndNeverNaN() {
        assertEquals("0", ProfileJson.number(Double.NaN));
        assertEquals("0", ProfileJson.number(Double.POSITIVE_INFINITY));
        assertEquals("0", ProfileJson.number(Double.NEGATIVE_INFINITY));
        assertEquals("0", ProfileJson.number(-0.0));
        assertEquals("12", ProfileJson.number(12.0));
        assertEquals("0.1", ProfileJson.number(0.1));
        assertEquals("1.1E-6", ProfileJson.number(1.1e-6));
        assertEquals("12.4", ProfileJson.number(12.4));
        assertEquals("9007199254740991", ProfileJson.number(0x1p53 - 1));
        assertEquals("9.007199254740992E15", ProfileJson.number(0x1p53));
        Random rnd = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            double d = switch (i % 3) {
                case 0 -> rnd.nextDouble();
                case 1 -> Double.longBitsToDouble(rnd.nextLong() & 0x7fefffffffffffffL);
                default -> rnd.nextInt(1_000_000) / 1000.0;
            };
            String s = ProfileJson.number(d);
            assertEquals(d, Double.parseDouble(s), s);
            String plain = Double.toString(d);
            assertTrue(s.length() <= plain.length(), s + " longer than " + plain);
        }
    }

    @Test
    void nanAndInfinityAreWrittenAsZero() throws IOException {
        Profile p = Fixtures.fourRanks();
        long calls = p.overhead().calls();
        Profile.Overhead o = new Profile.Overhead(Double.NaN, calls, Double.POSITIVE_INFINITY);
        Profile q = new Profile(p.schema(), p.partial(), p.partialReasons(), p.job(), p.ranks(), p.summary(), o,
                p.functions(), p.histogram(), p.blocks(), p.rankRows(), p.messages(), p.bytes());
        String json = text(q);
        assertTrue(json.contains("\"overhead\":{\"per_call_ns\":0,\"calls\":" + calls + ",\"total_s\":0}"), json);
        assertEquals(new Profile.Overhead(0, calls, 0), parse(json).overhead());
    }

    @Test
    void histogramsAreWrittenWithoutTrailingZeros() throws IOException {
        Profile p = Fixtures.fourRanks();
        long[] full = Arrays.copyOf(p.histogram(), Histogram.BUCKETS);
        Profile q = new Profile(p.schema(), p.partial(), p.partialReasons(), p.job(), p.ranks(), p.summary(),
                p.overhead(), p.functions(), full, p.blocks(), p.rankRows(), p.messages(), p.bytes());
        assertArrayEquals(p.histogram(), parse(text(q)).histogram());
        assertTrue(text(q).contains("\"histogram\":" + Arrays.toString(p.histogram()).replace(" ", "") + ",\n"));
    }

    @Test
    void unknownKeysAreIgnoredEverywhere() throws IOException {
        Profile p = Fixtures.fourRanks();
        String json = text(p);
        String future = "\"future\":{\"a\":[1,2.5,{\"b\":null}],\"c\":\"x\"}";
        json = edit(json, "\"partial\":false,", "\"partial\":false," + future + ",");
        json = edit(json, "\"hosts\":1,", "\"hosts\":1," + future + ",");
        json = json.replace("\"cv\":", future + ",\"cv\":");
        json = json.replace("{\"rank\":", "{" + future + ",\"rank\":");
        json = edit(json, "\"bytes\":[\n[[", "\"x\":[],\"bytes\":[\n[[");
        json = edit(json, "]},\n\"rank_functions\":[\n{", "],\"y\":7},\"z\":\"" + "w".repeat(1000)
                + "\",\n\"rank_functions\":[\n{");
        assertEquals(p, parse(json));
    }

    // --- refusals ------------------------------------------------------------------------------

    @Test
    void everyTruncationIsRefusedWithOneLine() throws IOException {
        String json = text(Fixtures.fourRanks());
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        int end = json.lastIndexOf('}') + 1;
        for (int cut = 0; cut < end; cut++) {
            String m = refused(Arrays.copyOf(bytes, cut));
            if (cut == 0) {
                assertEquals(NAME + ": empty file (no JSON value)", m);
            } else {
                int c = cut;
                assertTrue(m.matches("profile\\.json: truncated at line \\d+ \\(unexpected end of input\\)"),
                        () -> c + ": " + m);
            }
        }
        // The last newline is not needed.
        assertEquals(4, ProfileJson.read(NAME, new ByteArrayInputStream(Arrays.copyOf(bytes, end))).ranks());
    }

    @Test
    void truncationSaysWhere() throws IOException {
        String json = text(Fixtures.fourRanks());
        int lines = (int) json.substring(0, json.indexOf("\"rank_rows\"")).lines().count();
        String m = refused(json.substring(0, json.indexOf("\"rank_rows\"") + 20));
        // The cut is on the line after "rank_rows":[
        assertEquals(NAME + ": truncated at line " + (lines + 2) + " (unexpected end of input)", m);
    }

    @Test
    void randomDamageIsAcceptedOrRefusedWithOneLine() throws IOException {
        byte[] good = text(Fixtures.fourRanks()).getBytes(StandardCharsets.UTF_8);
        Random rnd = new Random(1);
        byte[] junk = "{}[],:\"0-1e9.\\ \u0000\u00ffnull".getBytes(StandardCharsets.ISO_8859_1);
        int refusedCount = 0;
        for (int i = 0; i < 3000; i++) {
            byte[] b = good.clone();
            for (int k = 0; k <= i % 3; k++) {
                int at = rnd.nextInt(b.length);
                b[at] = rnd.nextBoolean() ? junk[rnd.nextInt(junk.length)] : (byte) rnd.nextInt(256);
            }
            try {
                ProfileJson.read(NAME, new ByteArrayInputStream(b));
            } catch (ProfileFormatException e) {
                refusedCount++;
                assertFalse(e.getMessage().contains("\n"), e.getMessage());
                assertTrue(e.getMessage().startsWith(NAME + ": "), e.getMessage());
            } catch (Throwable t) {
                fail("damage " + i + ": " + t, t);
            }
        }
        assertTrue(refusedCount > 1000, "only " + refusedCount + " refused");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " \n\t ", "\n\n"})
    void emptyFiles(String json) {
        assertEquals(NAME + ": empty file (no JSON value)", refused(json));
    }

    @Test
    void notJson() {
        assertTrue(refused("hello").startsWith(NAME + ": line 1, column "), refused("hello"));
        assertTrue(refused("<html>").contains("Unexpected character"), refused("<html>"));
        assertEquals(NAME + ": line 1, column 1: not a jpmpi profile: the top level must be a JSON object, found an array",
                refused("[1,2]"));
        assertTrue(refused("\"x\"").contains("top level must be a JSON object, found \"x\""));
        assertTrue(refused("{\"ranks\":4}").contains("the first key must be \"schema\", found \"ranks\""));
        assertTrue(refused("{}").contains("missing \"schema\""), refused("{}"));
    }

    @Test
    void otherSchemas() {
        String json = assertDoesNotThrowText();
        assertEquals(NAME + ": line 1, column 11: unsupported schema \"jpmpi-profile-4\" (this jpmpi reads "
                + "jpmpi-profile-3, jpmpi-profile-2 and jpmpi-profile-1)", refused(json.replace("jpmpi-profile-3",
                "jpmpi-profile-4")));
        assertTrue(refused(json.replace("jpmpi-profile-3", "other")).contains("not a jpmpi profile: \"schema\" is "
                + "\"other\""));
        assertTrue(refused(json.replace("\"schema\":\"jpmpi-profile-3\"", "\"schema\":1"))
                .contains("\"schema\" must be a string, found 1"));
    }

    /** A file of the first schema, as jpmpi wrote it before schema 2: read, without the details. */
    @Test
    void theFirstSchemaIsStillRead() throws IOException {
        Profile p = Fixtures.fourRanks().withDetails(ProfileDetails.NONE);
        String v1 = text(p).replace("\"schema\":\"jpmpi-profile-3\"", "\"schema\":\"jpmpi-profile-1\"");
        Profile q = parse(v1);
        assertEquals(Profile.SCHEMA_1, q.schema());
        assertEquals(ProfileDetails.NONE, q.details());
        assertEquals(null, q.sites());
        assertEquals(p.functions(), q.functions());
        assertEquals(p.rankRows(), q.rankRows());
        assertEquals(p.messages(), q.messages());
        // written again, it is a schema 3 file
        assertTrue(text(q).startsWith("{\"schema\":\"jpmpi-profile-3\","));
    }

    /** A file of the second schema (run, timer, per-rank functions; no breakdown, no sites): read whole, without them. */
    @Test
    void theSecondSchemaIsStillRead() throws IOException {
        Profile p = Fixtures.withDetails(Fixtures.fourRanks());
        String v2 = text(p).replace("\"schema\":\"jpmpi-profile-3\"", "\"schema\":\"jpmpi-profile-2\"");
        assertFalse(v2.contains("\"sites\""), v2);
        Profile q = parse(v2);
        assertEquals(Profile.SCHEMA_2, q.schema());
        assertNull(q.details().breakdown());
        assertEquals(p.details(), q.details());
        assertEquals(null, q.sites());
        assertEquals(p.functions(), q.functions());
    }

    /** Schema 3's call sites: one per line after the timer, every field written and read back. */
    @Test
    void theSitesOfSchemaThree() throws IOException {
        Profile p = Fixtures.withSites(Fixtures.withDetails(Fixtures.fourRanks()));
        String json = text(p);
        int at = json.indexOf("\n\"sites\":{\"note\":\"no debug information for some sites in stripped"
                + " (addr2line answered ??)\",\"list\":[\n");
        assertTrue(at > json.indexOf("\"ranks\":") && at < json.indexOf("\"functions\":"), json);
        assertTrue(json.contains("\n{\"function\":\"MPI_Waitall\",\"module\":\"/home/me/halo\",\"offset\":4660,"
                + "\"resolved\":\"line\",\"file\":\"/home/me/halo.c\",\"line\":42,\"name\":\"exchange\",\"symbol\":null,"
                + "\"calls\":{\"sum\":"), json);
        assertTrue(json.contains("\n{\"function\":\"MPI_Bcast\",\"module\":\"/home/me/stripped\",\"offset\":2492,"
                + "\"resolved\":\"module\",\"file\":null,\"line\":0,\"name\":null,\"symbol\":null,"), json);
        assertEquals(p.sites().sites().size(), json.substring(at).lines().skip(2).takeWhile(l -> l.startsWith("{"))
                .count());
        assertEquals(p, parse(json));
        assertEquals(Profile.SCHEMA, parse(json).schema());
        // no note: null
        Profile noNote = p.withSites(new CallSites(null, p.sites().sites()));
        assertTrue(text(noNote).contains("\"sites\":{\"note\":null,\"list\":["));
        assertEquals(noNote, parse(text(noNote)));
        // none at all: an empty list, still there
        Profile none = p.withSites(new CallSites(null, List.of()));
        assertTrue(text(none).contains("\"sites\":{\"note\":null,\"list\":[]},\n"));
        assertEquals(none, parse(text(none)));
        // refusals name the site
        String m = refused(json.replace("\"resolved\":\"module\"", "\"resolved\":\"guess\""));
        assertTrue(m.matches(".*\"sites\\.list\\[\\d]\\.resolved\" must be.*"), m);
        assertTrue(m.contains("must be \"line\", \"function\", \"symbol\" or \"module\","
                + " found \"guess\""), m);
        m = refused(json.replace("\"file\":\"/home/me/halo.c\",\"line\":42", "\"file\":null,\"line\":42"));
        assertTrue(m.contains("\"sites.list[0]\" is resolved to a line but has no \"file\" and \"line\""), m);
        m = refused(json.replace("\"offset\":4660", "\"offset\":-1"));
        assertTrue(m.contains("\"sites.list[0].offset\" must be a non-negative integer, found -1"), m);
        m = refused(json.replace("\"function\":\"MPI_Bcast\"", "\"function\":\"\""));
        assertTrue(m.matches(".*\"sites\\.list\\[\\d]\\.function\" must not be empty"), m);
        m = refused(json.replace("\"max_rank\":3,", "\"max_rank\":4,"));
        assertTrue(m.contains("must be an integer from 0 to 3, found 4"), m);
    }

    /**
     * Schema 3's breakdown: jpmpi's own start and finalize in "overhead", "function_detail" with a
     * collective's buffer bytes and communicator sizes and a point-to-point function's time by size;
     * written and read back whole, refused where it disagrees with the functions.
     */
    @Test
    void theBreakdownOfSchemaThree() throws IOException {
        Profile p = Fixtures.withBreakdown(Fixtures.withDetails(Fixtures.fourRanks()));
        String json = text(p);
        assertTrue(json.contains(",\"start_s\":{\"sum\":0.0051,\"min\":0.0011,\"min_rank\":1,\"max\":0.0015,\"max_rank\":2,"),
                json);
        assertTrue(json.contains(",\"finalize_rank0_s\":0.0021},\n"), json);
        long calls = Fixtures.function(p, "MPI_Allreduce").calls();
        assertTrue(json.contains("\n\"function_detail\":[\n{\"name\":\"MPI_Allreduce\",\"buffer_bytes\":" + 8 * calls
                + ",\"time_by_size_s\":[],\"calls_by_comm_size\":[0,0," + calls + "],\"time_by_comm_size_s\":[0,0,"), json);
        assertTrue(json.contains("\n{\"name\":\"MPI_Isend\",\"time_by_size_s\":["), json);
        assertTrue(json.indexOf("\"function_detail\"") < json.indexOf("\"functions\""), json);
        Profile q = parse(json);
        assertEquals(p.details().breakdown(), q.details().breakdown());
        assertEquals(p, q);
        assertEquals(json, text(q));
        // without the breakdown nothing of it is written
        assertFalse(text(Fixtures.fourRanks()).contains("function_detail"));
        assertFalse(text(Fixtures.fourRanks()).contains("start_s"));
        // the detail must agree with the functions
        String more = json.replace("\"calls_by_comm_size\":[0,0," + calls + "]", "\"calls_by_comm_size\":[0,0," + (calls + 1) + "]");
        assertTrue(refused(more).contains("\"function_detail[0].calls_by_comm_size\" is " + (calls + 1)
                + ".0, more than the function's \"calls\""), refused(more));
        String unknown = json.replace("{\"name\":\"MPI_Isend\",\"time_by_size_s\"", "{\"name\":\"MPI_Nothing\",\"time_by_size_s\"");
        assertTrue(refused(unknown).contains("a function \"functions\" does not list"), refused(unknown));
        String twice = json.replace("{\"name\":\"MPI_Isend\",\"time_by_size_s\"", "{\"name\":\"MPI_Allreduce\",\"time_by_size_s\"");
        assertTrue(refused(twice).contains("names \"MPI_Allreduce\" twice"), refused(twice));
        String half = json.replaceFirst(",\"finalize_s\":\\{[^}]*}", "");
        assertTrue(refused(half).contains("\"start_s\" and \"finalize_s\" come together"), refused(half));
        String tooMany = json.replace("\"calls_by_comm_size\":[0,0,", "\"calls_by_comm_size\":[" + "0,".repeat(21));
        assertTrue(refused(tooMany).contains("has more than 21 buckets"), refused(tooMany));
    }

    /** Schema 2's details: the run, the timer, every rank's functions; written and read back whole. */
    @Test
    void theDetailsOfSchemaTwo() throws IOException {
        Profile p = Fixtures.withDetails(Fixtures.fourRanks());
        String json = text(p);
        assertTrue(json.contains("\n\"run\":{\"source\":\"jpmpi run\",\"command\":[\"mpirun\",\"-np\",\"4\",\"./halo\"],\"tools\":\"profile\","
                + "\"output\":\"/home/me/out\",\"wall_s\":13.5,\"settings\":{\"JPMPI_OUTPUT_DIR\":\"/home/me/out\","
                + "\"JPMPI_PROFILE_OUTPUT\":\"on\"}},\n"), json);
        assertTrue(json.contains("\n\"timer\":{\"resolution_s\":1.0E-8},\n"), json);
        int at = json.indexOf("\"rank_functions\":[\n");
        assertTrue(at > json.indexOf("\"matrix\""), json);
        assertEquals(p.ranks() + 2, json.substring(at).lines().count(), json.substring(at));
        assertEquals(p, parse(json));
        // the rows must add up to the functions' totals
        String first = json.substring(at).lines().skip(1).findFirst().orElseThrow();
        int calls = first.indexOf("[") + 1;
        String bad = json.substring(0, at) + json.substring(at).replaceFirst(
                java.util.regex.Pattern.quote(first), first.substring(0, calls) + "1" + first.substring(calls));
        String m = refused(bad);
        assertTrue(m.contains("summed over ranks\" is ") && m.contains("the function's calls"), m);
        String noRow = json.substring(0, at) + json.substring(at).replaceFirst(
                java.util.regex.Pattern.quote(first + "\n"), "");
        assertTrue(refused(noRow).contains("\"rank_functions\" has 3 rows, \"ranks\" is 4"), refused(noRow));
        String unknown = json.replace("\"rank_functions\":[\n{", "\"rank_functions\":[\n{\"MPI_Nothing\":[1,0,0,0],");
        assertTrue(refused(unknown).contains("is no function of \\\"functions\\\"")
                || refused(unknown).contains("is no function of \"functions\""), refused(unknown));
        String shortRow = json.replace("\"rank_functions\":[\n{", "\"rank_functions\":[\n{\"MPI_Nothing\":[1,0],");
        assertTrue(refused(shortRow).contains("must be [calls, time_s, bytes_sent, bytes_recv], found 2 values"),
                refused(shortRow));
    }

    private static String assertDoesNotThrowText() {
        try {
            return text(Fixtures.fourRanks());
        } catch (IOException e) {
            return fail(e);
        }
    }

    @Test
    void hostileNesting() {
        String deep = "[".repeat(100_000);
        String m = refused("{\"schema\":\"jpmpi-profile-1\",\"x\":" + deep);
        assertTrue(m.contains("nesting depth") && m.contains("(" + ProfileJson.MAX_NESTING + ")"), m);
        assertFalse(m.contains("StreamReadConstraints"), m);
        m = refused("{\"schema\":\"jpmpi-profile-1\",\"job\":" + "{\"a\":".repeat(100_000));
        assertTrue(m.contains("nesting depth"), m);
    }

    /** A stream of {@code head}, {@code n} times {@code fill}, {@code tail}, never all in memory. */
    private static InputStream repeated(String head, byte fill, long n, String tail) {
        InputStream middle = new InputStream() {
            private long left = n;

            @Override
            public int read() {
                return left-- > 0 ? fill : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left <= 0) {
                    return -1;
                }
                int k = (int) Math.min(len, left);
                Arrays.fill(b, off, off + k, fill);
                left -= k;
                return k;
            }
        };
        return new SequenceInputStream(new SequenceInputStream(
                new ByteArrayInputStream(head.getBytes(StandardCharsets.UTF_8)), middle),
                new ByteArrayInputStream(tail.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void hostileSizes() throws IOException {
        String json = text(Fixtures.fourRanks());
        int at = json.indexOf("\"executable\":\"") + 14;
        long fifty = 50L << 20;
        String m = refusedFrom(() -> ProfileJson.read(NAME, repeated(json.substring(0, at), (byte) 'a', fifty,
                json.substring(at))));
        assertTrue(m.contains("String value length") && m.contains("(" + ProfileJson.MAX_STRING + ")"), m);
        // A huge key, and a huge number.
        m = refusedFrom(() -> ProfileJson.read(NAME, repeated("{\"schema\":\"jpmpi-profile-1\",\"", (byte) 'k', fifty,
                "\":1}")));
        assertTrue(m.startsWith(NAME + ": line 1, column ") && m.contains("length")
                && m.contains("exceeds the maximum allowed"), m);
        m = refusedFrom(() -> ProfileJson.read(NAME, repeated("{\"schema\":\"jpmpi-profile-1\",\"ranks\":", (byte) '9',
                fifty, "}")));
        // Jackson counts a number's digits in its text buffer: its string limit stops it first.
        assertTrue(m.startsWith(NAME + ": line 1, column ") && m.contains("length (")
                && m.contains("exceeds the maximum allowed"), m);
        // A huge string under a key the reader does not know is skipped, not kept.
        Profile p = ProfileJson.read(NAME, repeated(json.substring(0, json.length() - 2) + ",\"future\":\"", (byte) 'z',
                fifty, "\"}\n"));
        assertEquals(Fixtures.fourRanks(), p);
    }

    @Test
    void absurdCountsAreRefusedBeforeAnythingIsAllocated() throws IOException {
        String json = text(Fixtures.fourRanks());
        assertEquals(NAME + ": line 5, column 9: \"ranks\" must be an integer from 1 to 1048576, found 2147483647",
                refused(edit(json, "\"ranks\":4,", "\"ranks\":2147483647,")));
        assertTrue(refused(edit(json, "\"ranks\":4,", "\"ranks\":0,")).contains("from 1 to 1048576, found 0"));
        assertTrue(refused(edit(json, "\"ranks\":4,", "\"ranks\":-4,")).contains("found -4"));
        assertTrue(refused(edit(json, "\"ranks\":4,", "\"ranks\":99999999999999999999999,"))
                .contains("found 99999999999999999999999"));
        // Legal but far more ranks than rows: refused at the end of the rows, nothing sized by it.
        String big = edit(json, "\"ranks\":4,", "\"ranks\":1048576,");
        String m = refused(big);
        assertTrue(m.contains("has 4 rows, \"ranks\" is 1048576"), m);
        // Rows beyond ranks: refused at the first one too many.
        String extra = edit(json, "}\n],\"matrix\"", "}\n,{}],\"matrix\"");
        assertTrue(refused(extra).contains("\"rank_rows\" has more than 4 rows (one per rank)"), refused(extra));
        String histogram = "\"histogram\":[" + "1,".repeat(48) + "1],\n";
        m = refused(edit(json, "\"histogram\":" + Arrays.toString(Fixtures.fourRanks().histogram()).replace(" ", "")
                + ",\n", histogram));
        assertTrue(m.contains("\"histogram\" has more than 48 buckets"), m);
    }

    @Test
    void wrongTypesAndValues() throws IOException {
        String json = text(Fixtures.fourRanks());
        assertTrue(refused(edit(json, "\"partial\":false", "\"partial\":\"no\""))
                .contains("\"partial\" must be true or false, found \"no\""));
        assertTrue(refused(edit(json, "\"ranks\":4,", "\"ranks\":\"4\","))
                .contains("\"ranks\" must be an integer from 1 to 1048576, found \"4\""));
        assertTrue(refused(edit(json, "\"ranks\":4,", "\"ranks\":4.0,")).contains("found 4.0"));
        assertTrue(refused(edit(json, "\"hosts\":1", "\"hosts\":null")).contains("\"job.hosts\" must be an integer"));
        assertTrue(refused(edit(json, "\"wall_s\":", "\"wall_s\":-1,\"x\":"))
                .contains("\"job.wall_s\" must be a finite non-negative number, found -1"));
        String calls = "\"name\":\"MPI_Waitall\",\"calls\":800,";
        String m = refused(edit(json, calls, "\"name\":\"MPI_Waitall\",\"calls\":\"abc\","));
        assertTrue(m.matches("profile\\.json: line 9, column \\d+: \"functions\\[0\\]\\.calls\" must be a non-negative"
                + " integer, found \"abc\""), m);
        assertTrue(refused(edit(json, calls, "\"name\":\"MPI_Waitall\",\"calls\":-1,")).contains("found -1"));
        assertTrue(refused(edit(json, calls, "\"name\":\"MPI_Waitall\",\"calls\":1e3,")).contains("found 1e3"));
        assertTrue(refused(edit(json, calls, "\"name\":\"MPI_Waitall\",\"calls\":[],")).contains("found an array"));
        assertTrue(refused(edit(json, "\"name\":\"MPI_Waitall\"", "\"name\":\"\"")).contains("must not be empty"));
        assertTrue(refused(edit(json, "\"name\":\"MPI_Isend\"", "\"name\":\"MPI_Waitall\""))
                .contains("function \"MPI_Waitall\" appears twice"));
        m = refused(edit(json, "\"job\":{\"id\":\"4711\"", "\"job\":{\"id\":\"4711\"\u0000"));
        assertTrue(m.contains("NUL"), m);
        m = refused(edit(json, "\"partial\":false", "\"partial\":false,\"partial\":true"));
        assertTrue(m.contains("Duplicate") && m.contains("partial"), m);
        m = refused(json.replaceFirst("\"cv\":", "\"cv\":1,\"cv\":"));
        assertTrue(m.contains("Duplicate") && m.contains("cv"), m);
        assertTrue(refused(json.replaceFirst("\"wall_s\":[0-9.E-]+", "\"wall_s\":NaN")).contains(
                "NaN and Infinity are not JSON numbers (found 'NaN')"), refused(json.replaceFirst("\"wall_s\":[0-9.E-]+",
                "\"wall_s\":NaN")));
        assertTrue(refused(json.replaceFirst("\"wall_s\":[0-9.E-]+", "\"wall_s\":Infinity")).contains("Infinity"));
        assertTrue(refused(json.replaceFirst("\"wall_s\":[0-9.E-]+", "\"wall_s\":1e999"))
                .contains("must be a finite non-negative number, found 1e999"));
        assertTrue(refused(json.replaceFirst("\"min_rank\":[0-9]+", "\"min_rank\":4"))
                .contains("\"summary.app_s.min_rank\" must be an integer from 0 to 3, found 4"));
        assertTrue(refused(edit(json, ",\n\"overhead\":", ",\n\"x\":")).contains("missing \"overhead\""));
        assertTrue(refused(json.replaceFirst(",\"cv\":[0-9.E-]+", "")).contains("missing \"cv\" in \"summary.app_s\""));
        assertTrue(refused(json + "x").contains("Unrecognized token") || refused(json + "x").contains("after the end"));
        assertTrue(refused(json + "{}").contains("unexpected content after the end of the profile"));
        byte[] latin = json.replace("/home/me/halo", "/home/m\u00e9/halo").getBytes(StandardCharsets.ISO_8859_1);
        assertTrue(refused(latin).contains("Invalid UTF-8"), refused(latin));
    }

    @Test
    void orderOfRanks() throws IOException {
        String json = text(Fixtures.fourRanks());
        String moved = edit(edit(json, "\"ranks\":4,\n", ""), "\"partial\":false,", "\"partial\":false,\"summary\":{},");
        assertTrue(refused(moved).contains("\"summary\" must come after \"ranks\""), refused(moved));
    }

    @Test
    void rowsAndMatrices() throws IOException {
        String json = text(Fixtures.fourRanks());
        assertTrue(refused(edit(json, "{\"rank\":1,", "{\"rank\":2,"))
                .contains("\"rank_rows[1].rank\" is 2, expected 1 (rows in rank order)"));
        assertTrue(refused(edit(json, "{\"rank\":1,\"host\":\"node1\"", "{\"rank\":1,\"host\":7"))
                .contains("\"rank_rows[1].host\" must be a string or null, found 7"));
        int matrix = json.indexOf("\"matrix\"");
        String rows = json.substring(matrix);
        // Row 0 of messages is [[1,201],[2,1],[3,201]].
        assertTrue(rows.startsWith("\"matrix\":{\"messages\":[\n[[1,201],[2,1],[3,201]],\n"), rows);
        String head = json.substring(0, matrix);
        assertTrue(refused(head + rows.replaceFirst("\\[\\[1,201],\\[2,1],\\[3,201]]", "[[1,201],[2,1],[4,201]]"))
                .contains("\"matrix.messages[0][2]\" must be an integer from 0 to 3, found 4"));
        assertTrue(refused(head + rows.replaceFirst("\\[\\[1,201],\\[2,1],\\[3,201]]", "[[2,201],[1,1],[3,201]]"))
                .contains("peers must be ascending in \"matrix.messages[0]\": 1 after 2"));
        assertTrue(refused(head + rows.replaceFirst("\\[\\[1,201],\\[2,1],\\[3,201]]", "[[1,201],[2,-1],[3,201]]"))
                .contains("\"matrix.messages[0][1]\" must be a non-negative integer, found -1"));
        assertTrue(refused(head + rows.replaceFirst("\\[\\[1,201],\\[2,1],\\[3,201]]", "[[1,201],[2],[3,201]]"))
                .contains("must be a [peer, value] pair, found a single number"));
        assertTrue(refused(head + rows.replaceFirst("\\[\\[1,201],\\[2,1],\\[3,201]]", "[[1,201],[2,1,5],[3,201]]"))
                .contains("found more than 2 elements"));
        assertTrue(refused(head + rows.replaceFirst("\\[\\[1,201],\\[2,1],\\[3,201]]", "[1,2]"))
                .contains("\"matrix.messages[0][0]\" must be a [peer, value] pair, found 1"));
        assertTrue(refused(head + rows.replaceFirst("\\[\\[1,201],\\[2,1],\\[3,201]],\n", ""))
                .contains("\"matrix.messages\" has 3 rows, \"ranks\" is 4"));
    }

    @Test
    void blocksMustAgree() throws IOException {
        String json = text(Fixtures.fourRanks());
        assertTrue(refused(edit(json, "\"first_rank\":[0,1,2,3]", "\"first_rank\":[1,2,3]"))
                .contains("\"blocks.first_rank[0]\" must be 0"));
        assertTrue(refused(edit(json, "\"first_rank\":[0,1,2,3]", "\"first_rank\":[0,2,1,3]"))
                .contains("\"blocks.first_rank[2]\" must be larger than the block before's, 2, found 1"));
        assertTrue(refused(edit(json, "\"first_rank\":[0,1,2,3]", "\"first_rank\":[0,1,2]"))
                .contains("\"blocks.app_s\" has 4 values, \"blocks.first_rank\" 3 blocks"));
        assertTrue(refused(edit(json, "\"first_rank\":[0,1,2,3]", "\"first_rank\":[]"))
                .contains("must list at least one block"));
        String m = refused(json.replaceFirst("\"messages\":\\[\n\\[0,", "\"messages\":[\n["));
        assertTrue(m.contains("\"blocks.messages[0]\" has 3 values, \"blocks.first_rank\" 4 blocks"), m);
    }

    /** Values each well-formed that disagree with the others: refused, naming the value, its line and the other. */
    @Test
    void figuresMustAgree() throws IOException {
        String json = text(Fixtures.fourRanks());
        String m = refused(json.replaceFirst("\"min_call_s\":[0-9.E-]+", "\"min_call_s\":1"));
        assertEquals(NAME + ": line 9, column 1: \"functions[0].min_call_s\" is 1.0, more than \"max_call_s\""
                + " (0.08681246589586541)", m);
        m = refused(edit(json, "{\"rank\":1,\"host\":\"node1\",\"pid\":40001,\"app_s\":",
                "{\"rank\":1,\"host\":\"node1\",\"pid\":40001,\"app_s\":1e308,\"x\":"));
        assertTrue(m.matches(NAME + ": line \\d+: \"rank_rows\\[1]\\.app_s\" is 1\\.0E308, more than"
                + " \"summary\\.app_s\\.max\" \\(12\\.47\\d+\\)"), m);
        assertTrue(refused(edit(json, "\"start\":\"2026-11-21T10:00:00Z\"", "\"start\":\"yesterday\""))
                .endsWith("\"job.start\" is \"yesterday\", not an ISO-8601 time (2026-11-21T10:00:00Z)"));
        m = refused(edit(json, "\"overhead\":{\"per_call_ns\":14.2,\"calls\":4816,",
                "\"overhead\":{\"per_call_ns\":14.2,\"calls\":4817,"));
        assertTrue(m.endsWith("\"overhead.calls\" is 4817.0, not 4816.0 (\"summary.calls.sum\")"), m);
        m = refused(edit(json, "\"name\":\"MPI_Waitall\",\"calls\":800,", "\"name\":\"MPI_Waitall\",\"calls\":801,"));
        assertTrue(m.endsWith("\"functions[0].per_rank.calls.sum\" is 800.0, not 801.0 (\"functions[0].calls\")"), m);
        m = refused(edit(json, "\"histogram\":[812,", "\"histogram\":[813,"));
        assertTrue(m.endsWith("\"histogram[0]\" is 813.0, not 812.0 (the functions' histogram[0] added up)"), m);
        m = refused(json.replaceFirst("\"wall_s\":[0-9.E-]+", "\"wall_s\":1"));
        assertTrue(m.contains("\"summary.app_s.max\" is 12.47"), m);
        assertTrue(m.endsWith("more than \"job.wall_s\" (1.0)"), m);
        m = refused(json.replaceFirst("\"wall_s\":[0-9.E-]+", "\"wall_s\":1e300"));
        assertTrue(m.endsWith("\"job.wall_s\" is 1.0E300, more than the longest time allowed (1.0E9)"), m);
        m = refused(edit(json, "\"partial\":false", "\"partial\":false,\"partial_reasons\":[\"rank 1: x\"],\"y\":0"));
        assertTrue(m.contains("Duplicate") || m.contains("\"partial_reasons\" lists reasons"), m);
    }

    @Test
    void minusZeroIsZero() throws IOException {
        String json = text(Fixtures.fourRanks());
        String minus = json.replace("\"cv\":0}", "\"cv\":-0}");
        assertNotEquals(json, minus);
        // Equal records: their doubles compare as Double.compare does, which tells -0.0 from 0.0.
        assertEquals(Fixtures.fourRanks(), parse(minus));
    }

    @Test
    void filesThatAreNotThere(@TempDir Path dir) throws IOException {
        assertThrows(java.nio.file.NoSuchFileException.class, () -> ProfileJson.read(dir.resolve("missing.json")));
        ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> ProfileJson.read(dir));
        assertEquals(dir + ": is a directory, not a profile.json", e.getMessage());
        Path file = dir.resolve("profile.json");
        Files.write(file, new byte[0]);
        e = assertThrows(ProfileFormatException.class, () -> ProfileJson.read(file));
        assertEquals(file + ": empty file (no JSON value)", e.getMessage());
    }

    @Test
    void writingIsAtomic(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("profile.json");
        Files.writeString(file, "old");
        Profile bad = Fixtures.withRows(Fixtures.fourRanks(), java.util.Collections.nCopies(4, null));
        assertThrows(NullPointerException.class, () -> ProfileJson.write(bad, file));
        assertEquals("old", Files.readString(file));
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "temporary file left behind");
        }
        ProfileJson.write(Fixtures.fourRanks(), file);
        assertEquals(Fixtures.fourRanks(), ProfileJson.read(file));
    }
}
