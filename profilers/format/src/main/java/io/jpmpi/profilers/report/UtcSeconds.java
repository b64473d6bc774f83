package io.jpmpi.profilers.report;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * A whole second in UTC as profile.json's {@code job.start} has it, "2026-11-21T10:00:00Z": what
 * Instant.toString writes for a whole second of the years 0 to 9999, written and recognised without
 * java.time's DateTimeFormatter, whose first use (its class initialisation, then ISO_INSTANT's
 * parser) costs the launcher's fresh JVM ~3 ms after every job (benchmarks/README.md, "The eighth
 * session"). Anything else goes to Instant as before; UtcSecondsTest compares the two.
 */
public final class UtcSeconds {
    private UtcSeconds() {
    }

    /** Instant.ofEpochSecond(second).toString(), for a second of the years 0 to 9999 without Instant's formatter. */
    public static String format(long second) {
        long day = Math.floorDiv(second, 86_400L);
        int inDay = (int) Math.floorMod(second, 86_400L);
        LocalDate date = LocalDate.ofEpochDay(day);
        if (date.getYear() < 0 || date.getYear() > 9999) {
            return Instant.ofEpochSecond(second).toString();
        }
        StringBuilder b = new StringBuilder(20);
        two(two(b, date.getYear() / 100), date.getYear() % 100).append('-');
        two(b, date.getMonthValue()).append('-');
        two(b, date.getDayOfMonth()).append('T');
        two(b, inDay / 3600).append(':');
        two(b, inDay / 60 % 60).append(':');
        return two(b, inDay % 60).append('Z').toString();
    }

    /** Whether {@code s} is exactly what {@link #format} writes for some second (Instant.parse takes it, then). */
    public static boolean isUtcSeconds(String s) {
        if (s.length() != 20 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T'
                || s.charAt(13) != ':' || s.charAt(16) != ':' || s.charAt(19) != 'Z') {
            return false;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0
                || second > 59) {
            return false;
        }
        try {
            LocalDate.of(year, month, day);
            return true;
        } catch (DateTimeException e) {
            return false;
        }
    }

    private static StringBuilder two(StringBuilder b, int v) {
        return b.append((char) ('0' + v / 10)).append((char) ('0' + v % 10));
    }

    /** The number the {@code n} characters from {@code at} write in decimal digits, or -1. */
    private static int digits(String s, int at, int n) {
        int v = 0;
        for (int i = at; i < at + n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
