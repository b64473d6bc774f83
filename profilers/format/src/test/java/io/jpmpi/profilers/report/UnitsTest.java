package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The figures of the reports, especially where rounding crosses into the next unit. */
class UnitsTest {
    /** Units.fixed writes what String.format("%.Nf") writes: ties, magnitudes, signs, the non-finite. */
    @Test
    void fixedIsFormattersFixedPoint() {
        List<Double> values = new ArrayList<>(List.of(0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 1.005, 2.675,
                0.045, 9.995, 99.95, 999.5, 0.05, 1e-7, 123456789.125, 1e15, 1e16 + 2, 1e22, 4.35, 0.1 + 0.2,
                Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, Double.NaN, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY, (double) Long.MAX_VALUE));
        Random r = new Random(26);
        for (int i = 0; i < 20000; i++) {
            double magnitude = Math.pow(10, r.nextInt(30) - 12);
            double v = r.nextDouble() * magnitude;
            values.add(r.nextBoolean() ? v : -v);
            // a tie at the last digit kept, as a report's figures often are (x.xx5)
            values.add((r.nextInt(200000) + 0.5) / Math.pow(10, r.nextInt(4)));
        }
        for (double v : values) {
            for (int d = 0; d <= 3; d++) {
                assertEquals(String.format((Locale) null, "%." + d + "f", v), Units.fixed(v, d), v + " to " + d);
            }
        }
    }

    @Test
    void seconds() {
        assertEquals("0 s", Units.seconds(0));
        assertEquals("12.3 s", Units.seconds(12.34));
        assertEquals("4.56 ms", Units.seconds(4.56e-3));
        assertEquals("789 us", Units.seconds(789e-6));
        assertEquals("12 ns", Units.seconds(12e-9));
        assertEquals("1.50 ns", Units.seconds(1.5e-9));
        assertEquals("1.00 s", Units.seconds(0.9996));
        assertEquals("1.00 ms", Units.seconds(999.7e-6));
        assertEquals("1.00 us", Units.seconds(999.7e-9));
        assertEquals("10.0 s", Units.seconds(9.9996));
        assertEquals("100 ms", Units.seconds(0.09996));
        assertEquals("999 s", Units.seconds(999.4));
        assertEquals("1000 s", Units.seconds(999.5));
        assertEquals("4321 s", Units.seconds(4321.4));
        assertEquals("n/a", Units.seconds(Double.NaN));
    }

    @Test
    void bytes() {
        assertEquals("0", Units.bytes(0));
        assertEquals("1023", Units.bytes(1023));
        assertEquals("1KiB", Units.bytes(1024));
        assertEquals("1.5KiB", Units.bytes(1536));
        assertEquals("3GiB", Units.bytes(3L << 30));
        assertEquals("1MiB", Units.bytes(1024 * 1024 - 10));
        assertEquals("1KiB", Units.bytes(1030));
        assertEquals("64KiB", Units.bytes(65535));
        assertEquals("n/a", Units.bytes(Double.POSITIVE_INFINITY));
    }

    @Test
    void counts() {
        assertEquals("0", Units.count(0));
        assertEquals("999999", Units.count(999_999));
        assertEquals("1.00M", Units.count(1_000_000));
        assertEquals("1.23M", Units.count(1_234_567));
        assertEquals("123M", Units.count(123_456_789));
        assertEquals("1.00G", Units.count(999_999_999));
        assertEquals("45.6G", Units.count(45_600_000_000.0));
    }

    @Test
    void percents() {
        assertEquals("0.0", Units.percent(0));
        assertEquals("<0.1", Units.percent(0.01));
        assertEquals("0.1", Units.percent(0.05));
        assertEquals("24.8", Units.percent(24.81));
        assertEquals("100.0", Units.percent(100));
    }

    @Test
    void histogramLabels() {
        assertEquals("0", Histogram.label(0));
        assertEquals("1", Histogram.label(1));
        assertEquals("2-3", Histogram.label(2));
        assertEquals("1KiB-2KiB", Histogram.label(11));
        assertEquals("64KiB-128KiB", Histogram.label(Histogram.bucket(64 * 1024)));
        assertEquals("64TiB+", Histogram.label(Histogram.BUCKETS - 1));
    }
}
