package io.jpmpi.tools.accounting;

import io.jpmpi.profilers.accounting.AccountingRecord;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The records of accounting files, line by line. A line that is not a record (a torn write, an
 * edit, another schema) is a {@link Problem}, never a failure; blank lines are nothing. Only a
 * file that cannot be read fails.
 */
public final class Records {
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
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                n++;
                if (line.isBlank()) {
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

    /** All records of {@code files}, in order. */
    public static List<AccountingRecord> readAll(List<Path> files, Consumer<Problem> problems) throws IOException {
        List<AccountingRecord> out = new ArrayList<>();
        for (Path f : files) {
            read(f, out::add, problems);
        }
        return out;
    }
}
