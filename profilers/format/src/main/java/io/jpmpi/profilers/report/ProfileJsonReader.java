package io.jpmpi.profilers.report;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.io.CharConversionException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading and validating profile.json: the first problem as a {@link ProfileFormatException}. */
final class ProfileJsonReader {
    private ProfileJsonReader() {
    }


    /**
     * Reads and validates {@code file}. Content problems throw a {@link ProfileFormatException} whose
     * message is one line starting with the file's name; I/O errors (no such file, permissions)
     * their own IOException.
     */
    static Profile read(Path file) throws IOException {
        InputFile.check(file, "a profile.json", 0);
        try (InputStream in = Files.newInputStream(file)) {
            return read(file.toString(), in);
        }
    }

    /** Reads and validates a profile from {@code in}; {@code source} names it in messages. */
    static Profile read(String source, InputStream in) throws IOException {
        Counting counted = new Counting(in);
        JsonParser parser = null;
        try (JsonParser p = ProfileJson.FACTORY.createParser(counted)) {
            parser = p;
            return new ProfileJsonDocument.Reader(source, p).profile();
        } catch (JsonEOFException e) {
            throw truncated(source, line(e, parser));
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation() != null ? e.getLocation()
                    : parser != null ? parser.currentLocation() : null;
            String original = String.valueOf(e.getOriginalMessage());
            if (counted.ended && (original.startsWith("Unexpected end-of-input") || cutToken(parser, at, original,
                    counted.count))) {
                throw truncated(source, line(e, parser));
            }
            throw new ProfileFormatException(source + ": " + (at == null ? "" : where(at))
                    + jacksonMessage(e.getOriginalMessage()));
        } catch (CharConversionException e) {
            throw new ProfileFormatException(source + ": not a UTF-8 text file ("
                    + clip(String.valueOf(e.getMessage()), 120) + ")");
        }
    }

    private static final Pattern UNRECOGNIZED = Pattern.compile(
            "Unrecognized token '([^']*)'");

    /**
     * Whether a parse error is a value cut by the end of the input ({@code fals}, {@code 12.}):
     * inside an array or object, the bad token reaching the last byte read.
     */
    private static boolean cutToken(JsonParser p, JsonLocation at, String message, long end) {
        if (p == null || at == null || at.getByteOffset() < 0 || p.getParsingContext().inRoot()) {
            return false;
        }
        Matcher m = UNRECOGNIZED.matcher(message);
        long tokenEnd = at.getByteOffset() + (m.lookingAt() ? m.group(1).length() : 1);
        return tokenEnd >= end;
    }

    static ProfileFormatException truncated(String source, int line) {
        return new ProfileFormatException(source + ": truncated at line " + line + " (unexpected end of input)");
    }

    /** The input, counting the bytes it gave and noting its end. */
    private static final class Counting extends FilterInputStream {
        long count;
        boolean ended;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            if (c < 0) {
                ended = true;
            } else {
                count++;
            }
            return c;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n < 0) {
                ended = true;
            } else {
                count += n;
            }
            return n;
        }
    }

    private static int line(JsonProcessingException e, JsonParser p) {
        if (e.getLocation() != null && e.getLocation().getLineNr() > 0) {
            return e.getLocation().getLineNr();
        }
        return p == null ? 1 : p.currentLocation().getLineNr();
    }

    static String where(JsonLocation at) {
        return "line " + at.getLineNr() + ", column " + at.getColumnNr() + ": ";
    }

    /** A jackson message made one short line, its references to jackson's own settings left out. */
    private static String jacksonMessage(String m) {
        String s = m == null ? "not valid JSON" : m.lines().findFirst().orElse("not valid JSON");
        if (s.startsWith("Non-standard token")) {
            int q = s.indexOf('\'');
            int q2 = q < 0 ? -1 : s.indexOf('\'', q + 1);
            return "NaN and Infinity are not JSON numbers" + (q2 > q ? " (found " + s.substring(q, q2 + 1) + ")" : "");
        }
        s = s.replaceAll(",? from `[^`]*`", "").replaceAll(":? ?(enable|use) `[^`]*`[^;)]*", "");
        if (s.contains("code 0)")) {
            s += " (NUL bytes: a part of the file that was never written?)";
        }
        return clip(s, 200);
    }

    /** {@code s} on one line: control and format characters escaped, cut at {@code max} chars. */
    static String clip(String s, int max) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), max) + 8);
        for (int i = 0; i < s.length(); i++) {
            if (b.length() >= max) {
                return b.append("...").toString();
            }
            char c = s.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c < 0xa0) || Character.getType(c) == Character.FORMAT
                    || Character.isSurrogate(c)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
