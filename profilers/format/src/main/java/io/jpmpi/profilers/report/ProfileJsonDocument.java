package io.jpmpi.profilers.report;

import static io.jpmpi.profilers.report.ProfileJson.MAX_BLOCKS;
import static io.jpmpi.profilers.report.ProfileJson.MAX_FUNCTIONS;
import static io.jpmpi.profilers.report.ProfileJson.MAX_RANKS;
import static io.jpmpi.profilers.report.ProfileJsonReader.clip;
import static io.jpmpi.profilers.report.ProfileJsonReader.truncated;
import static io.jpmpi.profilers.report.ProfileJsonReader.where;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The walk over one profile.json document that {@link ProfileJsonReader} starts: every key known,
 * every value checked against the schema and the limits, the first problem a
 * {@link ProfileFormatException} naming the path to the value.
 */
final class ProfileJsonDocument {
    private ProfileJsonDocument() {
    }

    /** A field of an object: {@code index} into the object's key list, -1 for a key it does not know. */
    @FunctionalInterface
    private interface Field {
        void read(int index) throws IOException;
    }

    /** An element of an array. */
    @FunctionalInterface
    private interface Element {
        void read(int index) throws IOException;
    }

    private static final String[] TOP = {"schema", "partial", "partial_reasons", "job", "ranks", "summary",
            "overhead", "functions", "histogram", "blocks", "rank_rows", "matrix",
            // added in jpmpi-profile-2 (optional: ProfileDetails)
            "run", "timer", "rank_functions",
            // added in jpmpi-profile-3 (optional: CallSites, ProfileBreakdown)
            "sites", "function_detail"};
    /** The first of TOP's keys that schema 2 added: they may be absent. */
    private static final int ADDED_IN_2 = 12;
    private static final String[] RUN = {"source", "command", "tools", "output", "wall_s", "settings"};
    private static final String[] TIMER = {"resolution_s"};
    private static final String[] JOB = {"id", "executable", "mpi", "hosts", "start", "wall_s", "step"};
    private static final String[] SUMMARY = {"app_s", "mpi_s", "mpi_pct", "calls", "bytes_sent", "bytes_recv"};
    private static final String[] STAT = {"sum", "min", "min_rank", "max", "max_rank", "avg", "cv"};
    private static final String[] OVERHEAD = {"per_call_ns", "calls", "total_s",
            // added in jpmpi-profile-3 (optional: ProfileBreakdown.Cost)
            "start_s", "finalize_s", "finalize_rank0_s"};
    private static final String[] FUNCTION_DETAIL = {"name", "buffer_bytes", "time_by_size_s", "calls_by_comm_size",
            "time_by_comm_size_s"};
    private static final String[] FUNCTION = {"name", "calls", "time_s", "bytes_sent", "bytes_recv", "min_call_s",
            "max_call_s", "per_rank", "histogram", "timed_calls", "time_error_s"};
    /** Keys that may be missing: a function's sampled timing (absent: every call timed). */
    private static final Set<String> OPTIONAL = Set.of("timed_calls", "time_error_s");
    private static final String[] PER_RANK = {"calls", "time_s", "bytes_sent", "bytes_recv"};
    private static final String[] BLOCKS = {"first_rank", "app_s", "mpi_s", "messages", "bytes"};
    private static final String[] RANK_ROW = {"rank", "host", "pid", "app_s", "mpi_s", "calls", "partial"};
    private static final String[] MATRIX = {"messages", "bytes"};
    private static final String[] SITES = {"note", "list"};
    private static final String[] SITE = {"function", "module", "offset", "resolved", "file", "line", "name", "symbol",
            "calls", "time_s", "bytes"};
    /** The top-level keys whose members' places are noted. */
    private static final Set<String> MARKED = Set.of("job", "summary", "overhead", "functions", "histogram", "blocks");
    /** The most words of a command line and settings read. */
    private static final int MAX_WORDS = 4096;
    private static final Pattern ROW = Pattern.compile("rank_rows\\[(\\d{1,7})]");

    /** One document's reading: the parser, the path to the current value (for messages), what is known so far. */
    static final class Reader {
        private final String source;
        private final JsonParser p;
        private final String[] pathKeys = new String[16];
        private final int[] pathIndexes = new int[16];
        private int depth;
        private int ranks;
        private String schema;
        /** Where the objects and arrays near the top start, for {@link ProfileCheck}'s messages. */
        private final Map<String, JsonLocation> places = new HashMap<>();
        /** The line each rank row starts on. */
        private final IntList rowLines = new IntList();

        Reader(String source, JsonParser p) {
            this.source = source;
            this.p = p;
        }

        Profile profile() throws IOException {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw new ProfileFormatException(source + ": empty file (no JSON value)");
            }
            if (t != JsonToken.START_OBJECT) {
                throw error("not a jpmpi profile: the top level must be a JSON object, found " + found());
            }
            boolean[] partial = new boolean[1];
            List<String> reasons = new ArrayList<>();
            Job[] job = new Job[1];
            Profile.Summary[] summary = new Profile.Summary[1];
            Profile.Overhead[] overhead = new Profile.Overhead[1];
            List<FunctionProfile> functions = new ArrayList<>();
            long[][] histogram = new long[1][];
            Profile.Blocks[] blocks = new Profile.Blocks[1];
            List<Profile.RankRow> rows = new ArrayList<>();
            List<List<Profile.SparseRow>> matrix = new ArrayList<>();
            int[] fields = new int[1];
            ProfileDetails.Run[] run = new ProfileDetails.Run[1];
            double[] timer = new double[1];
            List<ProfileDetails.RankFunctions> rankFunctions = new ArrayList<>();
            boolean[] hasRankFunctions = new boolean[1];
            CallSites[] sites = new CallSites[1];
            List<ProfileBreakdown.FunctionDetail> functionDetail = new ArrayList<>();
            object(TOP, ADDED_IN_2, k -> {
                if (fields[0]++ == 0 && k != 0) {
                    throw error("not a jpmpi profile: the first key must be \"schema\", found \""
                            + clip(p.currentName(), 40) + "\"");
                }
                if (k >= 5 && k != 12 && k != 13 && ranks == 0) {
                    throw error(quote(TOP[k]) + " must come after \"ranks\"");
                }
                switch (k) {
                    case 0 -> schema();
                    case 1 -> partial[0] = bool();
                    case 2 -> array(MAX_RANKS, "reasons", i -> reasons.add(string(false)));
                    case 3 -> job[0] = job();
                    case 4 -> ranks = intIn(1, MAX_RANKS);
                    case 5 -> summary[0] = summary();
                    case 6 -> overhead[0] = overhead();
                    case 7 -> functions(functions);
                    case 8 -> histogram[0] = histogram();
                    case 9 -> blocks[0] = blocks();
                    case 10 -> rankRows(rows);
                    case 11 -> matrix(matrix);
                    case 12 -> run[0] = run();
                    case 13 -> object(TIMER, j -> {
                        if (j == 0) {
                            timer[0] = amount();
                        }
                    });
                    case 14 -> {
                        rankFunctions(rankFunctions);
                        hasRankFunctions[0] = true;
                    }
                    case 15 -> sites[0] = sites();
                    case 16 -> functionDetail(functionDetail);
                    default -> {
                    }
                }
            });
            if (p.nextToken() != null) {
                throw error("unexpected content after the end of the profile");
            }
            Profile profile = new Profile(schema, partial[0], List.copyOf(reasons), job[0], ranks, summary[0],
                    overhead[0], List.copyOf(functions), histogram[0], blocks[0], List.copyOf(rows), matrix.get(0),
                    matrix.get(1), new ProfileDetails(run[0], timer[0],
                            hasRankFunctions[0] ? List.copyOf(rankFunctions) : null,
                            cost == null && functionDetail.isEmpty() ? null : new ProfileBreakdown(cost, functionDetail)),
                    sites[0]);
            try {
                ProfileCheck.check(profile);
            } catch (ProfileCheck.Inconsistency e) {
                throw new ProfileFormatException(source + ": " + locate(e.path()) + e.getMessage());
            }
            return profile;
        }

        /** Notes where the value just entered starts, if it is near the top. */
        private void mark() {
            String top = pathKeys[0];
            if (depth == 2 && "rank_rows".equals(top)) {
                rowLines.add(p.currentTokenLocation().getLineNr());
            } else if (depth == 1 || depth == 2 && MARKED.contains(top)) {
                places.put(path(), p.currentTokenLocation());
            }
        }

        /** "line L, column C: " of the value at {@code path} or the nearest enclosing one noted. */
        private String locate(String path) {
            for (String at = path; !at.isEmpty(); at = at.substring(0, Math.max(0, Math.max(at.lastIndexOf('.'),
                    at.lastIndexOf('['))))) {
                Matcher row = ROW.matcher(at);
                if (row.matches() && Integer.parseInt(row.group(1)) < rowLines.size()) {
                    return "line " + rowLines.get(Integer.parseInt(row.group(1))) + ": ";
                }
                JsonLocation l = places.get(at);
                if (l != null) {
                    return where(l);
                }
            }
            return "";
        }

        private void schema() throws IOException {
            String s = string(false);
            schema = s;
            if (!Profile.SCHEMA.equals(s) && !Profile.SCHEMA_2.equals(s) && !Profile.SCHEMA_1.equals(s)) {
                if (s.startsWith("jpmpi-profile-")) {
                    throw error("unsupported schema \"" + clip(s, 40) + "\" (this jpmpi reads " + Profile.SCHEMA
                            + ", " + Profile.SCHEMA_2 + " and " + Profile.SCHEMA_1 + ")");
                }
                throw error("not a jpmpi profile: \"schema\" is \"" + clip(s, 40) + "\", expected \""
                        + Profile.SCHEMA + "\"");
            }
        }

        private Job job() throws IOException {
            String[] strings = new String[5];
            int[] hosts = new int[1];
            double[] wall = new double[1];
            object(JOB, JOB.length - 1, k -> { // "step" only where a step is named
                switch (k) {
                    case 0 -> strings[0] = string(true);
                    case 1 -> strings[1] = string(true);
                    case 2 -> strings[2] = string(true);
                    case 3 -> hosts[0] = intIn(0, MAX_RANKS);
                    case 4 -> strings[3] = string(true);
                    case 5 -> wall[0] = amount();
                    case 6 -> strings[4] = string(false);
                    default -> {
                    }
                }
            });
            return new Job(strings[0], strings[1], strings[2], hosts[0], strings[3], wall[0], strings[4]);
        }

        private Profile.Summary summary() throws IOException {
            Stat[] s = new Stat[SUMMARY.length];
            object(SUMMARY, k -> {
                if (k >= 0) {
                    s[k] = stat();
                }
            });
            return new Profile.Summary(s[0], s[1], s[2], s[3], s[4], s[5]);
        }

        private Stat stat() throws IOException {
            double[] v = new double[STAT.length];
            int[] r = new int[STAT.length];
            object(STAT, k -> {
                switch (k) {
                    case 2, 4 -> r[k] = intIn(0, ranks - 1);
                    case -1 -> {
                    }
                    default -> v[k] = amount();
                }
            });
            return new Stat(v[0], v[1], r[2], v[3], r[4], v[5], v[6]);
        }

        private Profile.Overhead overhead() throws IOException {
            double[] d = new double[OVERHEAD.length];
            long[] calls = new long[1];
            Stat[] ends = new Stat[2];
            object(OVERHEAD, 3, k -> {
                switch (k) {
                    case 1 -> calls[0] = count();
                    case 3, 4 -> ends[k - 3] = stat();
                    case -1 -> {
                    }
                    default -> d[k] = amount();
                }
            });
            if ((ends[0] == null) != (ends[1] == null)) {
                throw error(quote(path() + (ends[0] == null ? ".start_s" : ".finalize_s")) + " is missing (\"start_s\""
                        + " and \"finalize_s\" come together)");
            }
            cost = ends[0] == null ? null : new ProfileBreakdown.Cost(ends[0], ends[1], d[5]);
            return new Profile.Overhead(d[0], calls[0], d[2]);
        }

        /** jpmpi's own start and finalize (schema 3), from "overhead"; null without them. */
        private ProfileBreakdown.Cost cost;

        /** Schema 3's "function_detail": one object per function, each named once. */
        private void functionDetail(List<ProfileBreakdown.FunctionDetail> out) throws IOException {
            Set<String> names = new HashSet<>();
            array(MAX_FUNCTIONS, "functions", i -> {
                String[] name = new String[1];
                long[] buffer = new long[1];
                double[][] seconds = {new double[0], new double[0]};
                long[][] calls = {new long[0]};
                object(FUNCTION_DETAIL, 1, k -> {
                    switch (k) {
                        case 0 -> {
                            name[0] = string(false);
                            if (name[0].isEmpty() || !names.add(name[0])) {
                                throw error(quote(path()) + (name[0].isEmpty() ? " must not be empty"
                                        : " names \"" + clip(name[0], 60) + "\" twice"));
                            }
                        }
                        case 1 -> buffer[0] = count();
                        case 2, 4 -> {
                            List<Double> v = new ArrayList<>();
                            array(k == 2 ? Histogram.BUCKETS : ProfileBreakdown.COMM_BUCKETS, "buckets", j -> v.add(amount()));
                            seconds[k == 2 ? 0 : 1] = v.stream().mapToDouble(Double::doubleValue).toArray();
                        }
                        case 3 -> {
                            LongList v = new LongList();
                            array(ProfileBreakdown.COMM_BUCKETS, "buckets", j -> v.add(count()));
                            calls[0] = v.toArray();
                        }
                        default -> {
                        }
                    }
                });
                out.add(new ProfileBreakdown.FunctionDetail(name[0], buffer[0], seconds[0], calls[0], seconds[1]));
            });
        }

        private void functions(List<FunctionProfile> out) throws IOException {
            Set<String> names = new HashSet<>();
            array(MAX_FUNCTIONS, "functions", i -> {
                FunctionProfile f = function();
                if (!names.add(f.name())) {
                    throw error("function \"" + clip(f.name(), 60) + "\" appears twice");
                }
                out.add(f);
            });
        }

        private FunctionProfile function() throws IOException {
            String[] name = new String[1];
            long[] l = new long[FUNCTION.length];
            double[] d = new double[FUNCTION.length];
            FunctionProfile.PerRank[] perRank = new FunctionProfile.PerRank[1];
            long[][] histogram = new long[1][];
            l[9] = -1; // no "timed_calls": every call timed
            object(FUNCTION, k -> {
                switch (k) {
                    case 0 -> {
                        name[0] = string(false);
                        if (name[0].isEmpty()) {
                            throw error(quote(path()) + " must not be empty");
                        }
                    }
                    case 1, 3, 4, 9 -> l[k] = count();
                    case 2, 5, 6, 10 -> d[k] = amount();
                    case 7 -> {
                        Stat[] s = new Stat[PER_RANK.length];
                        object(PER_RANK, j -> {
                            if (j >= 0) {
                                s[j] = stat();
                            }
                        });
                        perRank[0] = new FunctionProfile.PerRank(s[0], s[1], s[2], s[3]);
                    }
                    case 8 -> histogram[0] = histogram();
                    default -> {
                    }
                }
            });
            if (l[9] > l[1]) {
                throw error(quote(path() + ".timed_calls") + " must be at most the function's calls, " + l[1]
                        + ", found " + l[9]);
            }
            return new FunctionProfile(name[0], l[1], d[2], l[3], l[4], d[5], d[6], perRank[0], histogram[0],
                    l[9] < 0 ? l[1] : l[9], l[9] < 0 ? 0 : d[10]);
        }

        private long[] histogram() throws IOException {
            LongList h = new LongList();
            array(Histogram.BUCKETS, "buckets", i -> h.add(count()));
            return h.toArray();
        }

        private Profile.Blocks blocks() throws IOException {
            IntList first = new IntList();
            double[][] seconds = new double[2][];
            long[][][] matrices = new long[2][][];
            JsonLocation[] at = new JsonLocation[BLOCKS.length];
            object(BLOCKS, k -> {
                if (k >= 0) {
                    at[k] = p.currentTokenLocation();
                }
                switch (k) {
                    case 0 -> array(Math.min(ranks, MAX_BLOCKS), "blocks", i -> {
                        int r = intIn(0, ranks - 1);
                        if (i == 0 && r != 0) {
                            throw error(quote(path()) + " must be 0 (the first block starts at rank 0), found " + r);
                        }
                        if (i > 0 && r <= first.get(i - 1)) {
                            throw error(quote(path()) + " must be larger than the block before's, "
                                    + first.get(i - 1) + ", found " + r);
                        }
                        first.add(r);
                    });
                    case 1, 2 -> {
                        DoubleList v = new DoubleList();
                        array(MAX_BLOCKS, "blocks", i -> v.add(amount()));
                        seconds[k - 1] = v.toArray();
                    }
                    case 3, 4 -> {
                        List<long[]> rows = new ArrayList<>();
                        array(MAX_BLOCKS, "rows", i -> {
                            LongList row = new LongList();
                            array(MAX_BLOCKS, "blocks", j -> row.add(count()));
                            rows.add(row.toArray());
                        });
                        matrices[k - 3] = rows.toArray(new long[0][]);
                    }
                    default -> {
                    }
                }
            });
            int n = first.size();
            if (n == 0) {
                throw errorAt(at[0], "\"blocks.first_rank\" must list at least one block");
            }
            for (int k = 1; k <= 2; k++) {
                if (seconds[k - 1].length != n) {
                    throw errorAt(at[k], "\"blocks." + BLOCKS[k] + "\" has " + seconds[k - 1].length
                            + " values, \"blocks.first_rank\" " + n + " blocks");
                }
            }
            for (int k = 3; k <= 4; k++) {
                long[][] m = matrices[k - 3];
                if (m.length != n) {
                    throw errorAt(at[k], "\"blocks." + BLOCKS[k] + "\" has " + m.length
                            + " rows, \"blocks.first_rank\" " + n + " blocks");
                }
                for (int i = 0; i < n; i++) {
                    if (m[i].length != n) {
                        throw errorAt(at[k], "\"blocks." + BLOCKS[k] + "[" + i + "]\" has " + m[i].length
                                + " values, \"blocks.first_rank\" " + n + " blocks");
                    }
                }
            }
            return new Profile.Blocks(first.toArray(), seconds[0], seconds[1], matrices[0], matrices[1]);
        }

        private void rankRows(List<Profile.RankRow> out) throws IOException {
            int n = array(ranks, "rows (one per rank)", i -> out.add(rankRow(i)));
            if (n != ranks) {
                throw error(quote(path()) + " has " + n + " rows, \"ranks\" is " + ranks);
            }
        }

        private Profile.RankRow rankRow(int index) throws IOException {
            int[] rank = {-1};
            String[] s = new String[2];
            long[] l = new long[RANK_ROW.length];
            double[] d = new double[RANK_ROW.length];
            object(RANK_ROW, k -> {
                switch (k) {
                    case 0 -> {
                        rank[0] = intIn(0, ranks - 1);
                        if (rank[0] != index) {
                            throw error(quote(path()) + " is " + rank[0] + ", expected " + index
                                    + " (rows in rank order)");
                        }
                    }
                    case 1 -> s[0] = string(true);
                    case 2, 5 -> l[k] = count();
                    case 3, 4 -> d[k] = amount();
                    case 6 -> s[1] = string(true);
                    default -> {
                    }
                }
            });
            return new Profile.RankRow(rank[0], s[0], l[2], d[3], d[4], l[5], s[1]);
        }

        private ProfileDetails.Run run() throws IOException {
            List<String> command = new ArrayList<>();
            String[] strings = new String[3];
            double[] wall = new double[1];
            Map<String, String> settings = new HashMap<>();
            object(RUN, k -> {
                switch (k) {
                    case 0 -> {
                        strings[0] = string(false);
                        if (!strings[0].equals(ProfileDetails.FROM_LAUNCHER) && !strings[0].equals(ProfileDetails.FROM_RANK_0)) {
                            throw expected("\"" + ProfileDetails.FROM_LAUNCHER + "\" or \"" + ProfileDetails.FROM_RANK_0 + "\"");
                        }
                    }
                    case 1 -> array(MAX_WORDS, "words", i -> command.add(string(false)));
                    case 2, 3 -> strings[k - 1] = string(false);
                    case 4 -> wall[0] = amount();
                    case 5 -> object(new String[0], j -> {
                        if (settings.size() == MAX_WORDS) {
                            throw error(quote(parentPath()) + " has more than " + MAX_WORDS + " settings");
                        }
                        settings.put(p.currentName(), string(false));
                    });
                    default -> {
                    }
                }
            });
            return new ProfileDetails.Run(strings[0], command, strings[1], strings[2], wall[0], settings);
        }

        /** One object per rank: function name to [calls, time_s, bytes_sent, bytes_recv]. */
        private void rankFunctions(List<ProfileDetails.RankFunctions> out) throws IOException {
            if (ranks == 0) {
                throw error("\"rank_functions\" must come after \"ranks\"");
            }
            int n = array(ranks, "rows (one per rank)", i -> {
                List<ProfileDetails.Entry> entries = new ArrayList<>();
                object(new String[0], j -> {
                    if (entries.size() == MAX_FUNCTIONS) {
                        throw error(quote(parentPath()) + " has more than " + MAX_FUNCTIONS + " functions");
                    }
                    String name = p.currentName();
                    long[] l = new long[4];
                    double[] t = new double[1];
                    int m = array(4, "values ([calls, time_s, bytes_sent, bytes_recv])", v -> {
                        if (v == 1) {
                            t[0] = amount();
                        } else {
                            l[v] = count();
                        }
                    });
                    if (m != 4) {
                        throw error(quote(path()) + " must be [calls, time_s, bytes_sent, bytes_recv], found " + m
                                + " values");
                    }
                    entries.add(new ProfileDetails.Entry(name, l[0], t[0], l[2], l[3]));
                });
                out.add(new ProfileDetails.RankFunctions(entries));
            });
            if (n != ranks) {
                throw error(quote(path()) + " has " + n + " rows, \"ranks\" is " + ranks);
            }
        }

        /* ---- call sites (schema 3, issue 21) ---- */

        /** {@code {"note":..., "list":[site, ...]}}: at most {@link ProfileJson#MAX_SITES} sites. */
        private CallSites sites() throws IOException {
            String[] note = new String[1];
            List<CallSites.Site> list = new ArrayList<>();
            object(SITES, k -> {
                switch (k) {
                    case 0 -> note[0] = string(true);
                    case 1 -> array(ProfileJson.MAX_SITES, "sites", i -> list.add(site()));
                    default -> {
                    }
                }
            });
            return new CallSites(note[0], list);
        }

        private CallSites.Site site() throws IOException {
            String[] s = new String[SITE.length];
            long[] offset = new long[1];
            int[] line = new int[1];
            CallSites.Resolved[] resolved = new CallSites.Resolved[1];
            Stat[] stats = new Stat[SITE.length];
            object(SITE, k -> {
                switch (k) {
                    case 0, 1 -> {
                        s[k] = string(false);
                        if (s[k].isEmpty()) {
                            throw error(quote(path()) + " must not be empty");
                        }
                    }
                    case 2 -> offset[0] = count();
                    case 3 -> {
                        resolved[0] = CallSites.Resolved.of(string(false));
                        if (resolved[0] == null) {
                            throw expected("\"line\", \"function\", \"symbol\" or \"module\"");
                        }
                    }
                    case 4, 6, 7 -> s[k] = string(true);
                    case 5 -> line[0] = intIn(0, Integer.MAX_VALUE);
                    case 8, 9, 10 -> stats[k] = stat();
                    default -> {
                    }
                }
            });
            if (resolved[0] == CallSites.Resolved.LINE && (s[4] == null || line[0] == 0)) {
                throw error(quote(path()) + " is resolved to a line but has no \"file\" and \"line\"");
            }
            return new CallSites.Site(s[0], s[1], offset[0], resolved[0], s[4], line[0], s[6], s[7], stats[8],
                    stats[9], stats[10]);
        }

        /* ---- end of call sites ---- */

        private void matrix(List<List<Profile.SparseRow>> out) throws IOException {
            List<Profile.SparseRow> messages = new ArrayList<>();
            List<Profile.SparseRow> bytes = new ArrayList<>();
            IntList peers = new IntList();
            LongList values = new LongList();
            object(MATRIX, k -> {
                if (k < 0) {
                    return;
                }
                List<Profile.SparseRow> rows = k == 0 ? messages : bytes;
                int n = array(ranks, "rows (one per rank)", i -> rows.add(sparseRow(peers, values)));
                if (n != ranks) {
                    throw error(quote(path()) + " has " + n + " rows, \"ranks\" is " + ranks);
                }
            });
            out.add(List.copyOf(messages));
            out.add(List.copyOf(bytes));
        }

        /** {@code [[peer,value],...]}, peers ascending and in range; {@code peers}, {@code values} are scratch. */
        private Profile.SparseRow sparseRow(IntList peers, LongList values) throws IOException {
            peers.clear();
            values.clear();
            array(ranks, "peers", i -> {
                if (p.currentToken() != JsonToken.START_ARRAY) {
                    throw expected("a [peer, value] pair");
                }
                next();
                int peer = intIn(0, ranks - 1);
                if (i > 0 && peer <= peers.get(i - 1)) {
                    throw error("peers must be ascending in " + quote(parentPath()) + ": " + peer + " after "
                            + peers.get(i - 1));
                }
                if (next() == JsonToken.END_ARRAY) {
                    throw error(quote(path()) + " must be a [peer, value] pair, found a single number");
                }
                long value = count();
                if (next() != JsonToken.END_ARRAY) {
                    throw error(quote(path()) + " must be a [peer, value] pair, found more than 2 elements");
                }
                peers.add(peer);
                values.add(value);
            });
            if (peers.size() == 0) {
                return Profile.SparseRow.EMPTY;
            }
            return new Profile.SparseRow(peers.toArray(), values.toArray());
        }

        // --- structure ------------------------------------------------------------------------

        /**
         * The object at the current token: {@code field} is called with each value's key index in
         * {@code keys} (-1 for keys it does not know, whose values are then skipped); every key of
         * {@code keys} but the {@link #OPTIONAL} ones must be present.
         */
        private void object(String[] keys, Field field) throws IOException {
            object(keys, keys.length, field);
        }

        /** {@link #object(String[], Field)} where the keys from index {@code required} on may be absent. */
        private void object(String[] keys, int required, Field field) throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw expected("an object");
            }
            long seen = 0;
            while (next() != JsonToken.END_OBJECT) {
                String key = p.currentName();
                int k = indexOf(keys, key);
                next();
                enter(key);
                mark();
                field.read(k);
                if (k < 0) {
                    p.skipChildren();
                } else {
                    seen |= 1L << k;
                }
                leave();
            }
            for (int k = 0; k < required; k++) {
                if ((seen & (1L << k)) == 0 && !OPTIONAL.contains(keys[k])) {
                    String in = path();
                    throw error("missing " + quote(keys[k]) + (in.isEmpty() ? "" : " in " + quote(in)));
                }
            }
        }

        /**
         * The array at the current token, at most {@code max} elements (more is an error naming them
         * {@code what}); returns the number of elements.
         */
        private int array(int max, String what, Element element) throws IOException {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw expected("an array");
            }
            int n = 0;
            while (next() != JsonToken.END_ARRAY) {
                if (n == max) {
                    throw error(quote(path()) + " has more than " + max + " " + what);
                }
                enterIndex(n);
                mark();
                element.read(n);
                leave();
                n++;
            }
            return n;
        }

        private static int indexOf(String[] keys, String key) {
            for (int k = 0; k < keys.length; k++) {
                if (keys[k].equals(key)) {
                    return k;
                }
            }
            return -1;
        }

        private JsonToken next() throws IOException {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw truncated(source, p.currentLocation().getLineNr());
            }
            return t;
        }

        // --- values ---------------------------------------------------------------------------

        private boolean bool() throws IOException {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
                return t == JsonToken.VALUE_TRUE;
            }
            throw expected("true or false");
        }

        private String string(boolean nullable) throws IOException {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_STRING) {
                return p.getText();
            }
            if (nullable && t == JsonToken.VALUE_NULL) {
                return null;
            }
            throw expected(nullable ? "a string or null" : "a string");
        }

        /** A non-negative integer that fits a long. */
        private long count() throws IOException {
            if (p.currentToken() == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                long v = p.getLongValue();
                if (v >= 0) {
                    return v;
                }
            }
            throw expected("a non-negative integer");
        }

        private int intIn(int lo, int hi) throws IOException {
            if (p.currentToken() == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT) {
                int v = p.getIntValue();
                if (v >= lo && v <= hi) {
                    return v;
                }
            }
            throw expected("an integer from " + lo + " to " + hi);
        }

        /** A finite non-negative number. */
        private double amount() throws IOException {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
                double d = p.getDoubleValue();
                if (Double.isFinite(d) && d >= 0) {
                    return d + 0.0; // -0 is 0
                }
            }
            throw expected("a finite non-negative number");
        }

        // --- messages -------------------------------------------------------------------------

        private void enter(String key) {
            pathKeys[depth] = key;
            depth++;
        }

        private void enterIndex(int index) {
            pathKeys[depth] = null;
            pathIndexes[depth] = index;
            depth++;
        }

        private void leave() {
            depth--;
        }

        private String path() {
            return path(depth);
        }

        private String parentPath() {
            return path(depth - 1);
        }

        private String path(int n) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < n; i++) {
                if (pathKeys[i] == null) {
                    b.append('[').append(pathIndexes[i]).append(']');
                } else {
                    b.append(b.isEmpty() ? "" : ".").append(clip(pathKeys[i], 40));
                }
            }
            return b.toString();
        }

        private static String quote(String s) {
            return "\"" + s + "\"";
        }

        private ProfileFormatException expected(String what) throws IOException {
            return error(quote(path()) + " must be " + what + ", found " + found());
        }

        /** The current token as a message shows it. */
        private String found() throws IOException {
            JsonToken t = p.currentToken();
            return switch (t) {
                case START_OBJECT -> "an object";
                case START_ARRAY -> "an array";
                case VALUE_STRING -> "\"" + clip(p.getText(), 40) + "\"";
                case VALUE_NULL -> "null";
                default -> clip(p.getText(), 40);
            };
        }

        private ProfileFormatException error(String message) {
            return errorAt(p.currentTokenLocation(), message);
        }

        private ProfileFormatException errorAt(JsonLocation at, String message) {
            return new ProfileFormatException(source + ": " + where(at) + message);
        }
    }

    /** A growing int array. */
    private static final class IntList {
        private int[] a = new int[8];
        private int n;

        void add(int v) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        int get(int i) {
            return a[i];
        }

        int size() {
            return n;
        }

        void clear() {
            n = 0;
        }

        int[] toArray() {
            return Arrays.copyOf(a, n);
        }
    }

    /** A growing long array. */
    private static final class LongList {
        private long[] a = new long[8];
        private int n;

        void add(long v) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        void clear() {
            n = 0;
        }

        long[] toArray() {
            return Arrays.copyOf(a, n);
        }
    }

    /** A growing double array. */
    private static final class DoubleList {
        private double[] a = new double[8];
        private int n;

        void add(double v) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        double[] toArray() {
            return Arrays.copyOf(a, n);
        }
    }
}
