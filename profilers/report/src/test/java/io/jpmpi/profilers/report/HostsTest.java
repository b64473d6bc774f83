package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Per-host figures from the rank rows and the matrix, and the reports' per-host sections. */
class HostsTest {
    @Test
    void eachHostSumsItsRanksAndTheMatrixAcrossHosts() {
        Profile p = Fixtures.ring(8, false); // ranks 0-3 on node1, 4-7 on node2
        Hosts h = Hosts.of(p);
        assertEquals(2, h.hosts().size());
        assertEquals("node1", h.hosts().get(0).name());
        assertEquals("node2", h.hosts().get(1).name());
        long[][] bytes = new long[2][2];
        long[][] messages = new long[2][2];
        double[] app = new double[2];
        long[] calls = new long[2];
        for (Profile.RankRow r : p.rankRows()) {
            app[r.rank() / 4] += r.appSeconds();
            calls[r.rank() / 4] += r.calls();
            Profile.SparseRow b = p.bytes().get(r.rank());
            Profile.SparseRow m = p.messages().get(r.rank());
            for (int i = 0; i < b.peers().length; i++) {
                bytes[r.rank() / 4][b.peers()[i] / 4] += b.values()[i];
            }
            for (int i = 0; i < m.peers().length; i++) {
                messages[r.rank() / 4][m.peers()[i] / 4] += m.values()[i];
            }
        }
        for (int k = 0; k < 2; k++) {
            Hosts.Host x = h.hosts().get(k);
            assertEquals(4, x.ranks());
            assertEquals(4 * k, x.firstRank());
            assertEquals(app[k], x.appSeconds(), 1e-9);
            assertEquals(calls[k], x.calls());
            assertEquals(bytes[k][1 - k], x.bytesOut());
            assertEquals(bytes[1 - k][k], x.bytesIn());
            for (int j = 0; j < 2; j++) {
                assertEquals(bytes[k][j], h.bytes()[k][j]);
                assertEquals(messages[k][j], h.messages()[k][j]);
            }
        }
        assertTrue(h.betweenHosts() > 0, "a ring crosses the hosts");
        assertEquals(bytes[0][1] + bytes[1][0], h.betweenHosts());
    }

    @Test
    void theReportsShowThemOnlyForMoreThanOneHost() {
        String two = TextReport.render(Fixtures.ring(8, false));
        assertTrue(two.contains("\nPer host (2 hosts; "), two);
        assertTrue(two.contains("\nBytes between hosts (sender row, receiver column)\n"), two);
        assertTrue(HtmlReport.render(Fixtures.ring(8, false)).contains("<h3>Per host</h3>"));
        String one = TextReport.render(Fixtures.ring(4, false));
        assertFalse(one.contains("Per host"), one);
        assertEquals(0, Hosts.of(Fixtures.withoutRows(Fixtures.fourRanks())).hosts().size());
    }
}
