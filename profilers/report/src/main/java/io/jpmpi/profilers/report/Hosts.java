package io.jpmpi.profilers.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A profile's figures per host, from its rank rows and its matrix: each host (in the order of its
 * first rank) with its ranks, their application and MPI time and calls, and what its ranks sent to
 * and received from ranks on other hosts; and the bytes and messages between every two hosts. Empty
 * for a profile without rank rows (a partial one merged from dumps without them).
 */
public record Hosts(List<Host> hosts, long[][] bytes, long[][] messages) {
    /** One host: its name ("(unknown)" when a rank did not say), its ranks, their sums. */
    public record Host(String name, int ranks, int firstRank, double appSeconds, double mpiSeconds, long calls,
                       long bytesOut, long bytesIn) {
        public double mpiPercent() {
            return appSeconds > 0 ? 100 * mpiSeconds / appSeconds : 0;
        }
    }

    /** The hosts of {@code p}. */
    public static Hosts of(Profile p) {
        List<Profile.RankRow> rows = p.rankRows();
        if (rows.isEmpty()) {
            return new Hosts(List.of(), new long[0][0], new long[0][0]);
        }
        Map<String, Integer> index = new LinkedHashMap<>();
        int[] hostOf = new int[rows.size()];
        for (Profile.RankRow r : rows) {
            String name = r.host() == null || r.host().isEmpty() ? "(unknown)" : r.host();
            hostOf[r.rank()] = index.computeIfAbsent(name, k -> index.size());
        }
        int n = index.size();
        int[] ranks = new int[n];
        int[] first = new int[n];
        double[] app = new double[n];
        double[] mpi = new double[n];
        long[] calls = new long[n];
        java.util.Arrays.fill(first, -1);
        for (Profile.RankRow r : rows) {
            int h = hostOf[r.rank()];
            ranks[h]++;
            first[h] = first[h] < 0 ? r.rank() : first[h];
            app[h] += r.appSeconds();
            mpi[h] += r.mpiSeconds();
            calls[h] += r.calls();
        }
        long[][] bytes = new long[n][n];
        long[][] messages = new long[n][n];
        add(p.bytes(), hostOf, bytes);
        add(p.messages(), hostOf, messages);
        List<Host> hosts = new ArrayList<>(n);
        int k = 0;
        for (String name : index.keySet()) {
            long out = 0;
            long in = 0;
            for (int other = 0; other < n; other++) {
                if (other != k) {
                    out += bytes[k][other];
                    in += bytes[other][k];
                }
            }
            hosts.add(new Host(name, ranks[k], first[k], app[k], mpi[k], calls[k], out, in));
            k++;
        }
        return new Hosts(List.copyOf(hosts), bytes, messages);
    }

    private static void add(List<Profile.SparseRow> matrix, int[] hostOf, long[][] into) {
        for (int from = 0; from < matrix.size() && from < hostOf.length; from++) {
            Profile.SparseRow row = matrix.get(from);
            for (int i = 0; i < row.peers().length; i++) {
                int to = row.peers()[i];
                if (to >= 0 && to < hostOf.length) {
                    into[hostOf[from]][hostOf[to]] += row.values()[i];
                }
            }
        }
    }

    /** Bytes sent between different hosts, all pairs. */
    public long betweenHosts() {
        long sum = 0;
        for (int i = 0; i < bytes.length; i++) {
            for (int j = 0; j < bytes.length; j++) {
                sum += i == j ? 0 : bytes[i][j];
            }
        }
        return sum;
    }
}
