package io.jpmpi.profilers.report;

import java.util.Locale;

/** Human-readable figures for the reports. */
public final class Units {
    private Units() {
    }

    /**
     * {@link String#format} without a locale: the digits 0 to 9, '.' before the decimals and ',' between
     * groups, as Locale.ROOT has them, but no locale data loaded. With a locale, the first number
     * formatted loads CLDR's decimal symbols for it, ~10 ms of the launcher's after-job time in a
     * fresh JVM (benchmarks/README.md, "launcher/"); the reports' figures are the same either way.
     */
    public static String format(String format, Object... args) {
        return String.format((Locale) null, format, args);
    }

    /**
     * {@code v} with {@code decimals} digits after the point, exactly as {@code format("%.<decimals>f", v)}
     * writes it: the shortest decimal digits that name the double (Double.toString's), rounded half up.
     * Without Formatter, whose every call costs the launcher's fresh JVM several times this, and without
     * BigDecimal, whose class initialisation alone costs it ~30 ms (benchmarks/README.md, "The eighth
     * session"). UnitsTest compares this with Formatter on many values.
     */
    public static String fixed(double v, int decimals) {
        if (!Double.isFinite(v) || decimals < 0) {
            return format("%." + decimals + "f", v);
        }
        String s = Double.toString(Math.abs(v)); // "123.45", "1.0E-5", "1.2345E10"
        int e = s.indexOf('E');
        String mantissa = e < 0 ? s : s.substring(0, e);
        int dot = mantissa.indexOf('.');
        StringBuilder digits = new StringBuilder(mantissa.length() + decimals + 1);
        digits.append(mantissa, 0, dot).append(mantissa, dot + 1, mantissa.length());
        int point = dot + (e < 0 ? 0 : Integer.parseInt(s.substring(e + 1))); // digits before the point
        int keep = point + decimals; // digits kept
        StringBuilder out = new StringBuilder(decimals + 24);
        if (v < 0 || (v == 0 && 1 / v < 0)) {
            out.append('-');
        }
        if (keep < 0) { // below half a unit of the last decimal kept
            out.append('0');
            if (decimals > 0) {
                out.append('.').repeat('0', decimals);
            }
            return out.toString();
        }
        while (digits.length() < keep) {
            digits.append('0');
        }
        boolean up = keep < digits.length() && digits.charAt(keep) >= '5';
        digits.setLength(keep);
        if (up) {
            int k = keep - 1;
            while (k >= 0 && digits.charAt(k) == '9') {
                digits.setCharAt(k--, '0');
            }
            if (k >= 0) {
                digits.setCharAt(k, (char) (digits.charAt(k) + 1));
            } else {
                digits.insert(0, '1');
                point++;
            }
        }
        if (point <= 0) {
            out.append('0');
        } else {
            int first = 0;
            while (first < point - 1 && digits.charAt(first) == '0') {
                first++;
            }
            out.append(digits, first, point);
        }
        if (decimals > 0) {
            out.append('.');
            if (point < 0) {
                out.repeat('0', -point).append(digits, 0, digits.length());
            } else {
                out.append(digits, point, digits.length());
            }
        }
        return out.toString();
    }

    /** What the reports' units mean, in one line. */
    public static final String LEGEND = "bytes: KiB = 1024 bytes, MiB = 1024 KiB, GiB = 1024 MiB;"
            + " counts: M = million, G = billion; time: s, ms, us (microseconds), ns";

    /** 1023 → "1023", 1024 → "1KiB", 1536 → "1.5KiB", 3·2^30 → "3GiB" (binary units, IEC names). */
    public static String bytes(double bytes) {
        if (!Double.isFinite(bytes)) {
            return "n/a";
        }
        String[] units = {"", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        int u = 0;
        double v = bytes;
        while (Math.abs(v) >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        if (u == 0) {
            return fixed(v, 0);
        }
        String t = v == Math.rint(v) ? fixed(v, 0) : fixed(v, 1);
        if (Math.abs(Double.parseDouble(t)) >= 1024 && u < units.length - 1) {
            // 1023.96KiB rounds to 1024.0KiB: that is 1MiB.
            return bytes(Math.copySign(Math.pow(1024, u + 1), v));
        }
        return t.endsWith(".0") ? t.substring(0, t.length() - 2) + units[u] : t + units[u];
    }

    /**
     * Seconds with a unit that keeps three significant figures: "12.3 s", "4.56 ms", "789 us"; whole
     * nanoseconds from 10 ns ("12 ns"); whole seconds from 1000 s ("4321 s"). A value that rounds up to
     * 1000 of a unit is shown in the next ("1.00 ms", not "1000 us").
     */
    public static String seconds(double s) {
        if (!Double.isFinite(s)) {
            return "n/a";
        }
        double a = Math.abs(s);
        if (a == 0) {
            return "0 s";
        }
        if (a >= 999.5) {
            return fixed(s, 0) + " s";
        }
        String[] units = {"s", "ms", "us", "ns"};
        int u = a >= 1 ? 0 : a >= 1e-3 ? 1 : a >= 1e-6 ? 2 : 3;
        String t = inUnit(s, u);
        if (u > 0 && Math.abs(Double.parseDouble(t)) >= 1000) {
            u--;
            t = inUnit(s, u);
        }
        return t + " " + units[u];
    }

    private static String inUnit(double s, int u) {
        double v = s * Math.pow(1000, u);
        if (u == 3 && Math.abs(v) >= 9.5) {
            return fixed(v, 0);
        }
        return significant3(v);
    }

    /** {@code v} with three significant figures and no exponent (for |v| below 1000). */
    static String significant3(double v) {
        double a = Math.abs(v);
        int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
        return fixed(v, decimals);
    }

    /** A count: exact below a million, then three significant figures: "999999", "1.23M", "45.6G". */
    public static String count(double n) {
        if (!Double.isFinite(n)) {
            return "n/a";
        }
        double a = Math.abs(n);
        if (a < 999_999.5) {
            return fixed(n, 0);
        }
        String[] units = {"M", "G", "T", "P", "E"};
        int u = 0;
        double v = n / 1e6;
        while (Math.abs(v) >= 999.5 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return significant3(v) + units[u];
    }

    /** A percentage with one decimal ("24.8"); "<0.1" for small positive values; no % sign. */
    public static String percent(double pct) {
        if (!Double.isFinite(pct)) {
            return "n/a";
        }
        if (pct > 0 && pct < 0.05) {
            return "<0.1";
        }
        return fixed(pct, 1);
    }
}
