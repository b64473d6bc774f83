package io.jpmpi.profilers.mpit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** mpit.txt: every watched variable on every object, its derived value and its changes per function and region. */
public final class MpitText {
    private MpitText() {
    }

    /** One variable on one object, added up over the ranks that had it. */
    private static final class Row {
        final Results.WatchResult first;
        int ranks;
        double delta;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double avgSum;
        double valueSum;
        double valueMax = Double.NEGATIVE_INFINITY;
        double valueMin = Double.POSITIVE_INFINITY;
        long moves;
        double moved;
        long failures;
        final Map<String, double[]> functions = new LinkedHashMap<>(); // name -> {sum, |sum| of ranks}
        final List<Double> regions = new ArrayList<>();

        Row(Results.WatchResult w) {
            this.first = w;
        }

        boolean changed() {
            return moves > 0 || delta != 0;
        }
    }

    static String render(Results.Document doc) {
        StringBuilder b = new StringBuilder();
        b.append("MPI_T performance variables (jpmpi mpit): ").append(doc.mpi()).append(", ").append(doc.ranks())
                .append(doc.ranks() == 1 ? " rank\n" : " ranks\n");
        b.append("reads: ").append(doc.mode()).append('\n');
        if (doc.perRank().isEmpty()) {
            return b.append("no rank reported results\n").toString();
        }
        Results.RankResult r0 = doc.perRank().get(0);
        b.append("variables: ").append(r0.pvarsBeforeInit() < 0 ? "?" : r0.pvarsBeforeInit())
                .append(" performance variables before MPI_Init, ").append(r0.pvarsAfterInit() < 0 ? "?" : r0.pvarsAfterInit())
                .append(" after; ").append(r0.cvars()).append(" control variables\n");
        if (r0.pvarsAfterInit() == 0) {
            b.append("this MPI has no performance variables: nothing to read\n");
        }
        if (r0.readHandles() > 0) {
            b.append(String.format(Locale.ROOT, "cost: one read of every variable (%d handles) takes %.2f us on rank 0"
                    + " (median of 101 rounds timed at MPI_Finalize)%n", r0.readHandles(), r0.readAllNs() / 1000));
        }
        for (String s : r0.cvarsSet()) {
            b.append("control variable set before MPI_Init: ").append(s).append('\n');
        }
        r0.uncoveredBinds().forEach((bind, names) -> b.append("not read: ").append(names.size())
                .append(" variable(s) bound to ").append(bind).append(" (").append(String.join(", ", names))
                .append("): jpmpi mpit allocates handles for unbound, communicator and window variables only\n"));
        for (Results.RankResult r : doc.perRank()) {
            for (String n : r.notes()) {
                b.append("note (rank ").append(r.rank()).append("): ").append(n).append('\n');
            }
        }
        Map<String, Row> rows = new LinkedHashMap<>();
        for (Results.RankResult r : doc.perRank()) {
            for (Results.WatchResult w : r.watches()) {
                Row row = rows.computeIfAbsent(w.name() + "\u0000" + w.object(), k -> new Row(w));
                add(row, w);
            }
        }
        List<String> quiet = new ArrayList<>();
        for (Row row : rows.values()) {
            Results.WatchResult w = row.first;
            String title = w.name() + (w.object().equals("-") ? "" : " on " + w.object());
            if (!row.changed()) {
                quiet.add(title);
                continue;
            }
            b.append('\n').append(title).append("  [").append(w.varClass()).append(", ").append(w.type()).append(" x")
                    .append(w.count()).append(w.continuous() ? ", continuous" : ", started by the tool")
                    .append(w.readonly() ? ", read-only" : "").append(", ").append(row.ranks)
                    .append(row.ranks == 1 ? " rank]\n" : " ranks]\n");
            b.append("  ").append(derived(row)).append('\n');
            if (row.failures > 0) {
                b.append("  failed reads: ").append(row.failures).append(" (").append(w.failure()).append(")\n");
            }
            List<Map.Entry<String, double[]>> fs = new ArrayList<>(row.functions.entrySet());
            fs.removeIf(e -> e.getValue()[1] == 0);
            fs.sort(Comparator.comparingDouble((Map.Entry<String, double[]> e) -> -e.getValue()[1]));
            if (!fs.isEmpty()) {
                b.append("  change per MPI function (all ranks, all elements):\n");
                for (var e : fs) {
                    b.append(String.format(Locale.ROOT, "    %-28s %s%n", e.getKey(), num(e.getValue()[0], true)));
                }
            }
            if (doc.perRank().get(0).regions().size() > 1 || !fs.isEmpty() || !row.regions.isEmpty()) {
                b.append("  change per region:\n");
                List<String> names = doc.perRank().get(0).regions();
                for (int i = 0; i < row.regions.size(); i++) {
                    String name = i < names.size() ? names.get(i) : "region " + i;
                    b.append(String.format(Locale.ROOT, "    %-28s %s%n", name, num(row.regions.get(i), true)));
                }
            }
        }
        if (!quiet.isEmpty()) {
            Map<String, Integer> byName = new java.util.TreeMap<>();
            for (String q : quiet) {
                byName.merge(q.replaceFirst(" on .*", ""), 1, Integer::sum);
            }
            List<String> parts = new ArrayList<>();
            byName.forEach((n, k) -> parts.add(k == 1 ? n : n + " (" + k + " objects)"));
            b.append('\n').append("did not change: ").append(String.join(", ", parts)).append('\n');
        }
        long freedQuiet = doc.perRank().stream().mapToLong(Results.RankResult::quietFreed).sum();
        long alloc = doc.perRank().stream().mapToLong(Results.RankResult::handlesAllocated).sum();
        long freed = doc.perRank().stream().mapToLong(Results.RankResult::handlesFreed).sum();
        b.append("handles: ").append(alloc).append(" allocated, ").append(freed).append(" freed (all ranks); ")
                .append(freedQuiet).append(" on freed objects did not change and are not listed\n");
        return b.toString();
    }

    private static void add(Row row, Results.WatchResult w) {
        row.ranks++;
        row.failures += w.failures();
        for (int i = 0; i < w.count(); i++) {
            row.delta += w.value()[i] - w.first()[i];
            row.min = Math.min(row.min, w.min()[i]);
            row.max = Math.max(row.max, w.max()[i]);
            row.avgSum += w.avg()[i] / w.count();
            row.valueSum += w.value()[i];
            row.valueMax = Math.max(row.valueMax, w.value()[i]);
            row.valueMin = Math.min(row.valueMin, w.value()[i]);
            row.moves += w.moves()[i];
            row.moved += w.moved()[i];
        }
        w.functions().forEach((f, d) -> {
            double s = 0;
            for (double x : d) {
                s += x;
            }
            double[] acc = row.functions.computeIfAbsent(f, k -> new double[2]);
            acc[0] += s;
            acc[1] += Math.abs(s);
        });
        for (int i = 0; i < w.regions().size(); i++) {
            double[] d = w.regions().get(i);
            double s = 0;
            for (int k = 0; d != null && k < d.length; k++) {
                s += d[k];
            }
            while (row.regions.size() <= i) {
                row.regions.add(0.0);
            }
            row.regions.set(i, row.regions.get(i) + s);
        }
    }

    private static String derived(Row row) {
        Results.WatchResult w = row.first;
        return switch (w.derive()) {
            case "delta" -> "grew by " + num(row.delta, false) + " between MPI_Init and MPI_Finalize (sum over ranks)";
            case "range" -> "readings: min " + num(row.min, false) + ", avg " + num(row.avgSum / row.ranks, false)
                    + ", max " + num(row.max, false) + " (average of the readings, not time-weighted)";
            case "watermark" -> "value " + num(w.varClass().equals("lowwatermark") ? row.valueMin : row.valueMax, false)
                    + " (" + (w.varClass().equals("lowwatermark") ? "lowest" : "highest") + " over ranks); moved "
                    + row.moves + " times by " + num(row.moved, false) + " in total";
            default -> "value at MPI_Finalize: " + num(row.valueSum, false) + " (sum over ranks and elements), max "
                    + num(row.valueMax, false) + "; changed " + row.moves + " times";
        };
    }

    static String num(double v, boolean sign) {
        String s = v == Math.rint(v) && Math.abs(v) < 1e15 ? String.format(Locale.ROOT, "%d", (long) v)
                : String.format(Locale.ROOT, "%.6g", v);
        return sign && v > 0 ? "+" + s : s;
    }
}
