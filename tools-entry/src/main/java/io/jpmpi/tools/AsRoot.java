package io.jpmpi.tools;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One rule for root, in every subcommand that starts a job (run, doctor's smoke runs, demo, mpit
 * list): as root, Open MPI's mpirun refuses to start unless OMPI_ALLOW_RUN_AS_ROOT and
 * OMPI_ALLOW_RUN_AS_ROOT_CONFIRM are 1, MPICH and srun do not ask. jpmpi sets the two for an Open MPI
 * launcher when they are not set already, and says so in one line, so what doctor found ready is
 * what run does. Set them yourself and jpmpi sets and says nothing.
 */
final class AsRoot {
    static final Map<String, String> OPEN_MPI = orderedOpenMpi();

    private AsRoot() {
    }

    /**
     * The variables jpmpi adds to the environment of a launcher of kind {@code kind} started by
     * this process with environment {@code env}; the one line said when it adds any.
     */
    static Map<String, String> allowance(Context ctx, Launcher.Kind kind) {
        if (kind != Launcher.Kind.OPEN_MPI || !isRoot()) {
            return Map.of();
        }
        // (loops, not lambdas: a lambda the launcher's AOT cache of a run has not seen is made on every job)
        Map<String, String> add = new LinkedHashMap<>();
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : OPEN_MPI.entrySet()) {
            if (!e.getValue().equals(ctx.env().get(e.getKey()))) {
                add.put(e.getKey(), e.getValue());
                b.append(b.isEmpty() ? "" : " ").append(e.getKey()).append('=').append(e.getValue());
            }
        }
        if (!add.isEmpty()) {
            ctx.note("running as root: " + b + " set for Open MPI's mpirun, which refuses root otherwise");
        }
        return add;
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static Map<String, String> orderedOpenMpi() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        m.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        return java.util.Collections.unmodifiableMap(m);
    }
}
