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
import java.util.function.Function;

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
            return file + ":" + line + ": " + printable(why);
        }
    }

    /**
     * {@code s} safe for a terminal: control characters (C0, DEL, C1) and the characters that
     * reorder text on screen (bidirectional overrides, embeddings, isolates, marks) as \\uXXXX, so a
     * user name or a file's text cannot move the cursor, recolour or reorder what an administrator
     * reads.
     */
    public static String printable(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean hide = c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e)
                    || (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f || c == 0x061c;
            if (hide && b == null) {
                b = new StringBuilder(s.length() + 16).append(s, 0, i);
            }
            if (b != null) {
                if (hide) {
                    b.append(String.format("\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? s : b.toString();
    }

    private Records() {
    }

    /**
     * Every record of {@code file} to {@code sink}, which answers null when it takes the record or
     * why it does not; every refused line to {@code problems}.
     */
    public static void read(Path file, Function<AccountingRecord, String> sink, Consumer<Problem> problems)
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
                    String refused = sink.apply(AccountingRecord.parse(line));
                    if (refused != null) {
                        problems.accept(new Problem(file, n, refused));
                    }
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
            read(f, r -> {
                out.add(r);
                return null;
            }, problems);
        }
        return out;
    }
}
