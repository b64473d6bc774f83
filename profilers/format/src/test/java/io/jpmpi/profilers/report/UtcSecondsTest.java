package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** UtcSeconds writes what Instant.toString writes, and recognises only what Instant.parse takes. */
class UtcSecondsTest {
    private static final long LAST = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    private static final long FIRST = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();

    @Test
    void formatIsInstantsToStringOfAWholeSecond() {
        List<Long> seconds = new ArrayList<>(List.of(0L, 1L, -1L, 59L, 60L, 86_399L, 86_400L, LAST, FIRST,
                LAST + 1, FIRST - 1, Instant.parse("2024-02-29T12:34:56Z").getEpochSecond(),
                Instant.parse("2000-02-29T23:59:59Z").getEpochSecond(), 1_764_238_000L));
        Random r = new Random(26);
        for (int i = 0; i < 50_000; i++) {
            seconds.add(FIRST + (long) (r.nextDouble() * (LAST - FIRST)));
        }
        for (long s : seconds) {
            String want = Instant.ofEpochSecond(s).toString();
            assertEquals(want, UtcSeconds.format(s), "second " + s);
            if (s >= FIRST && s <= LAST) {
                assertEquals(true, UtcSeconds.isUtcSeconds(want), want);
            }
        }
    }

    /** Recognised only where Instant.parse gives back a whole second that formats to the same text. */
    @Test
    void recognisedOnlyWhereInstantAgrees() {
        List<String> texts = List.of("2026-11-21T10:00:00Z", "2023-02-29T10:00:00Z", "2024-02-29T10:00:00Z",
                "1900-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-11-31T00:00:00Z",
                "2026-11-21T24:00:00Z", "2026-11-21T23:60:00Z", "2026-11-21T23:59:60Z", "2026-11-21T10:00:00.5Z",
                "2026-11-21 10:00:00Z", "2026-11-21T10:00:00", "+2026-11-21T10:00:00Z", "2026-1a-21T10:00:00Z",
                "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-11-21T10:00:00+01:00", "");
        for (String t : texts) {
            boolean instantSays;
            try {
                instantSays = Instant.parse(t).toString().equals(t);
            } catch (DateTimeParseException e) {
                instantSays = false;
            }
            assertEquals(instantSays, UtcSeconds.isUtcSeconds(t), t);
        }
    }
}
