package io.jpmpi.profilers.mpit;

import io.jpmpi.layering.Level;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code jpmpi mpit list}: every performance and control variable of the running MPI, taken before
 * and after MPI_Init (MPIs add variables as their components open), written as a table.
 */
final class Listing {
    private final Tools tools;
    private final Map<String, List<Variable>> taken = new LinkedHashMap<>();

    Listing(Tools tools) {
        this.tools = tools;
    }

    void take(String when) {
        List<Variable> vars = new ArrayList<>();
        int np = tools.pvarCount();
        for (int i = 0; i < np; i++) {
            Variable v = tools.pvar(i);
            if (v != null) {
                vars.add(v);
            }
        }
        int nc = tools.cvarCount();
        for (int i = 0; i < nc; i++) {
            Variable v = tools.cvar(i);
            if (v != null) {
                vars.add(v);
            }
        }
        taken.put(when + " (" + np + " performance variable indices, " + nc + " control variable indices)", vars);
    }

    /** The table; the last snapshot in full, variables only the earlier one had marked. */
    String render(String implementation) {
        StringBuilder b = new StringBuilder();
        b.append("MPI_T variables of ").append(implementation).append('\n');
        List<String> whens = new ArrayList<>(taken.keySet());
        for (String w : whens) {
            long p = taken.get(w).stream().filter(v -> v.kind() == Variable.Kind.PVAR).count();
            long c = taken.get(w).size() - p;
            b.append(w).append(": ").append(p).append(" valid performance variables, ").append(c)
                    .append(" valid control variables\n");
        }
        if (whens.isEmpty()) {
            return b.toString();
        }
        List<Variable> last = taken.get(whens.get(whens.size() - 1));
        List<Variable> all = new ArrayList<>(last);
        if (whens.size() > 1) {
            for (Variable v : taken.get(whens.get(0))) {
                if (last.stream().noneMatch(x -> x.kind() == v.kind() && x.name().equals(v.name()))) {
                    all.add(v);
                }
            }
        }
        long pvars = all.stream().filter(v -> v.kind() == Variable.Kind.PVAR).count();
        if (pvars == 0) {
            b.append("this MPI has no performance variables\n");
        }
        b.append(String.format(Locale.ROOT, "%n%-4s %5s %-44s %-13s %-10s %-22s %-12s %-9s %s%n", "kind", "index", "name",
                "class/scope", "bind", "datatype", "verbosity", "flags", "description"));
        for (Variable v : all) {
            boolean gone = !last.contains(v);
            String flags = v.kind() == Variable.Kind.PVAR ? (v.continuous() ? "cont" : "startable")
                    + (v.readonly() ? ",ro" : ",rw") + (v.atomic() ? ",atomic" : "") : "";
            b.append(String.format(Locale.ROOT, "%-4s %5d %-44s %-13s %-10s %-22s %-12s %-9s %s%s%n",
                    v.kind() == Variable.Kind.PVAR ? "pvar" : "cvar", v.index(), v.name(),
                    v.kind() == Variable.Kind.PVAR ? v.className() : v.scopeName(), v.bindName().replace("mpi_", ""),
                    v.type().mpiName + (!v.enumtype().equals(io.jpmpi.layering.generated.Constants.MPI_T_ENUM_NULL) ? "(enum)"
                            : ""), v.verbosityName(), flags, gone ? "[before MPI_Init only] " : "",
                    v.description().replaceAll("\\s+", " ")));
        }
        return b.toString();
    }

    void write(String file, Level level) {
        try {
            if (level.worldRank() != 0) {
                return;
            }
            Files.writeString(Path.of(file), render(level.implementation()), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            level.message("mpit: cannot write the listing to " + file + ": " + e);
        }
    }
}
