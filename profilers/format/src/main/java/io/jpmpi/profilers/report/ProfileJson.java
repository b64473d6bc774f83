package io.jpmpi.profilers.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.nio.file.Path;

/**
 * profile.json (schema {@value Profile#SCHEMA}, profilers/profile/PROFILE.md) written and read with
 * jackson-core's streaming API.
 *
 * <p>Writing comes in pieces so that every rank can write its own rows at its own offset (one
 * positional write each, ProfileLevel): {@link #head}, then one {@link #rankRow} per rank,
 * {@link #middle}, one {@link #sparseRow} per rank (messages), {@link #middle2}, one
 * {@link #sparseRow} per rank (bytes), {@link #tail}; or, with schema 2's per-rank functions,
 * {@link #middle3}, one {@link #rankFunctionsRow} per rank, {@link #tail2} instead of {@link #tail}. Every piece is pure ASCII (non-ASCII
 * characters are written as \\u escapes), so its length in chars is its length in bytes. Numbers
 * that are NaN or infinite are written as 0; integral doubles below 2^53 as integers, others in
 * their shortest round-trip form.
 *
 * <p>The pieces are {@link ProfileJsonWriter}'s; reading is {@link ProfileJsonReader}'s.
 *
 * <p>Reading validates everything and reports the first problem as a {@link ProfileFormatException}
 * with one line naming the file, the line and column, and the key.
 */
public final class ProfileJson {
    /** The largest number of ranks read. */
    public static final int MAX_RANKS = 1 << 20;
    /** The largest number of functions read. */
    public static final int MAX_FUNCTIONS = 4096;
    /** The largest number of call sites read (sites.list). */
    public static final int MAX_SITES = 1 << 16;
    /** The largest number of blocks read (blocks.first_rank). */
    public static final int MAX_BLOCKS = 1024;
    /**
     * The longest time of one rank read (its application time, its time in one function, one call):
     * 1e9 s, about 31 years. Sums over ranks may be up to {@link #MAX_RANKS} times as long.
     */
    public static final double MAX_SECONDS = 1e9;
    /** The largest cost of recording one call read, in ns (a real one is a few ns). */
    public static final double MAX_PER_CALL_NS = 1e6;
    /** The deepest nesting of arrays and objects read (the schema needs 5). */
    public static final int MAX_NESTING = 32;
    /** The longest string value read, in chars. */
    public static final int MAX_STRING = 65_536;
    /** The longest key read, in chars. */
    public static final int MAX_KEY = 256;
    /** The longest number read, in chars. */
    public static final int MAX_NUMBER = 64;

    /** The one configuration of jackson for reading and writing (limits, strictness, ASCII output). */
    static final JsonFactory FACTORY = new JsonFactoryBuilder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_NESTING)
                    .maxStringLength(MAX_STRING)
                    .maxNameLength(MAX_KEY)
                    .maxNumberLength(MAX_NUMBER)
                    .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .disable(StreamWriteFeature.AUTO_CLOSE_CONTENT)
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .build();

    private ProfileJson() {
    }

    /** Writes the whole profile to {@code file} atomically (a temporary file beside it, then a rename). */
    public static void write(Profile p, Path file) throws IOException {
        AtomicFile.write(file, w -> write(p, w));
    }

    /** The whole profile: exactly the concatenation of the pieces. */
    public static void write(Profile p, Writer w) throws IOException {
        ProfileJsonWriter.write(p, w);
    }

    /** Everything from the opening brace up to and including {@code "rank_rows":[} and a newline. */
    public static String head(Profile p) {
        return ProfileJsonWriter.head(p);
    }

    /** One rank's row, on one line, followed by ",\n", or by "\n" for the last row. */
    public static String rankRow(Profile.RankRow row, boolean last) {
        return ProfileJsonWriter.rankRow(row, last);
    }

    /** Between the rank rows and the rows of the messages matrix. */
    public static String middle() {
        return ProfileJsonWriter.middle();
    }

    /** One rank's row of a matrix, {@code [[peer,value],...]}, then ",\n", or "\n" for the last row. */
    public static String sparseRow(Profile.SparseRow row, boolean last) {
        return ProfileJsonWriter.sparseRow(row, last);
    }

    /** Between the rows of the messages matrix and those of the bytes matrix. */
    public static String middle2() {
        return ProfileJsonWriter.middle2();
    }

    /** After the rows of the bytes matrix: the end of the document. */
    public static String tail() {
        return ProfileJsonWriter.tail();
    }

    /** Between the rows of the bytes matrix and the per-rank functions (schema 2's "rank_functions"). */
    public static String middle3() {
        return ProfileJsonWriter.middle3();
    }

    /** One rank's functions on one line, then ",\n", or "\n" for the last row. */
    public static String rankFunctionsRow(ProfileDetails.RankFunctions row, boolean last) {
        return ProfileJsonWriter.rankFunctionsRow(row, last);
    }

    /** After the per-rank functions: the end of the document. */
    public static String tail2() {
        return ProfileJsonWriter.tail2();
    }

    /** A double as written: see {@link ProfileJsonWriter#number(double)}. */
    static String number(double d) {
        return ProfileJsonWriter.number(d);
    }

    /**
     * Reads and validates {@code file}. Content problems throw a {@link ProfileFormatException} whose
     * message is one line starting with the file's name; I/O errors (no such file, permissions)
     * their own IOException.
     */
    public static Profile read(Path file) throws IOException {
        return ProfileJsonReader.read(file);
    }

    /** Reads and validates a profile from {@code in}; {@code source} names it in messages. */
    public static Profile read(String source, InputStream in) throws IOException {
        return ProfileJsonReader.read(source, in);
    }
}
