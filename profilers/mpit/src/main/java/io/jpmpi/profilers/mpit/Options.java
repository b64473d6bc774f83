package io.jpmpi.profilers.mpit;

import io.jpmpi.layering.generated.Variables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The mpit tool's options, from its settings (JPMPI_MPIT_*): when to read, which performance
 * variables, which control variables to set, and the listing mode of {@code jpmpi mpit list}.
 */
record Options(Mode mode, int every, List<Pattern> pvars, List<String[]> cvars, String list) {
    /** When the tool reads every variable. */
    enum Mode {
        /** At MPI_Init, each MPI_Pcontrol and MPI_Finalize only: no upcall on other calls (the default). */
        REGIONS,
        /** Before and after every N-th MPI call (N = 1: every call), charged to that call. */
        CALLS
    }

    static final String READ = Variables.MPIT_READ;
    static final String PVARS = Variables.MPIT_PVARS;
    static final String CVARS = Variables.MPIT_CVARS;
    static final String LIST = Variables.MPIT_LIST;

    /** Parses the settings; a malformed one throws IllegalArgumentException naming it. */
    static Options from(Map<String, String> env) {
        String read = env.getOrDefault(READ, "").trim();
        Mode mode = Mode.REGIONS;
        int every = 1;
        if (read.isEmpty() || read.equals("regions")) {
            mode = Mode.REGIONS;
        } else if (read.equals("calls")) {
            mode = Mode.CALLS;
        } else if (read.startsWith("calls:")) {
            mode = Mode.CALLS;
            try {
                every = Integer.parseInt(read.substring(6));
            } catch (NumberFormatException e) {
                every = 0;
            }
            if (every < 1) {
                throw new IllegalArgumentException(READ + "='" + read + "': N in calls:N must be a positive integer");
            }
        } else {
            throw new IllegalArgumentException(READ + "='" + read + "': use regions (the default), calls, or calls:N");
        }
        List<Pattern> pvars = new ArrayList<>();
        for (String g : env.getOrDefault(PVARS, "").split("[,\\s]+")) {
            if (!g.isEmpty()) {
                pvars.add(glob(g));
            }
        }
        List<String[]> cvars = new ArrayList<>();
        for (String item : env.getOrDefault(CVARS, "").split(";")) {
            String t = item.trim();
            if (t.isEmpty()) {
                continue;
            }
            int eq = t.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(CVARS + ": '" + t + "' is not name=value (items are separated by ';')");
            }
            cvars.add(new String[] {t.substring(0, eq).trim(), t.substring(eq + 1).trim()});
        }
        String list = env.getOrDefault(LIST, "").trim();
        return new Options(mode, every, List.copyOf(pvars), List.copyOf(cvars), list.isEmpty() ? null : list);
    }

    /** Whether a performance variable is watched: every one, unless JPMPI_MPIT_PVARS names some. */
    boolean watches(String name) {
        if (pvars.isEmpty()) {
            return true;
        }
        for (Pattern p : pvars) {
            if (p.matcher(name).matches()) {
                return true;
            }
        }
        return false;
    }

    String describe() {
        return mode == Mode.REGIONS ? "regions (reads at MPI_Init, every MPI_Pcontrol and MPI_Finalize; no cost on other"
                + " calls; set " + READ + "=calls or calls:N to charge changes to MPI functions)"
                : every == 1 ? "calls (every variable read before and after every MPI call)"
                : "calls:" + every + " (every variable read before and after every " + every + "th MPI call)";
    }

    private static Pattern glob(String g) {
        StringBuilder b = new StringBuilder();
        for (char c : g.toCharArray()) {
            b.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
        }
        return Pattern.compile(b.toString());
    }
}
