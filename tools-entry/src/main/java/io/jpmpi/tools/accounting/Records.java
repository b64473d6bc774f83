package io.jpmpi.tools.accounting;

import io.jpmpi.profilers.accounting.AccountingRecord;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The records of accounting files, line by line. A line that is not a record (a torn write, an
 * edit, another schema, a key twice, figures that do not agree, longer than any record) is a
 * {@link Problem}, never a failure; blank lines are nothing. Only a file that cannot be read fails.
 */
public final class Records {
    /** The most characters of a line read: a longer one is not a record, and is not kept in memory. */
    static final int MAX_LINE = AccountingRecord.MAX_RECORD;

    /** A line skipped: where, and why. */
    public record Problem(Path file, long line, String why) {
        @Override
        public String toString() {
            return file + ":" + line + ": " + why;
        }
    }

    private Records() {
    }

    /** Every record of {@code file} to {@code sink}, every refused line to {@code problems}. */
    public static void read(Path file, Consumer<AccountingRecord> sink, Consumer<Problem> problems)
            throws IOException {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try (BufferedReader in = new BufferedReader(new java.io.InputStreamReader(Files.newInputStream(file),
                decoder))) {
            long n = 0;
            StringBuilder b = new StringBuilder(MAX_LINE + 1);
            for (String line = line(in, b); line != null; line = line(in, b)) {
                n++;
                if (line.isBlank()) {
                    continue;
                }
                if (line.length() > MAX_LINE) {
                    problems.accept(new Problem(file, n, "longer than " + MAX_LINE + " characters, the most a record"
                            + " has"));
                    continue;
                }
                try {
                    sink.accept(AccountingRecord.parse(line));
                } catch (AccountingRecord.FormatException e) {
                    problems.accept(new Problem(file, n, e.getMessage()));
                }
            }
        }
    }

    /**
     * The next line without its end ("\n", "\r\n"), null at the end of the input; a line longer
     * than {@link #MAX_LINE} is read to its end but only its first MAX_LINE + 1 characters kept.
     */
    private static String line(Reader in, StringBuilder b) throws IOException {
        b.setLength(0);
        int c = in.read();
        if (c < 0) {
            return null;
        }
        for (; c >= 0 && c != '\n'; c = in.read()) {
            if (b.length() <= MAX_LINE) {
                b.append((char) c);
            }
        }
        if (!b.isEmpty() && b.charAt(b.length() - 1) == '\r' && b.length() <= MAX_LINE) {
            b.setLength(b.length() - 1);
        }
        return b.toString();
    }

    /** All records of {@code files}, in order. */
    public static List<AccountingRecord> readAll(List<Path> files, Consumer<Problem> problems) throws IOException {
        List<AccountingRecord> out = new ArrayList<>();
        for (Path f : files) {
            read(f, out::add, problems);
        }
        return out;
    }
}
