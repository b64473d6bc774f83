package io.jpmpi.bindings.c;

import io.jpmpi.specs.Category;
import io.jpmpi.specs.Implementation;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Emits the generated half of the {@code profile} tool's C level (libjpmpi-profile.so) for one MPI
 * implementation: an id per recorded function ({@code jpmpi_profile_ids.h}) and one wrapper per
 * function ({@code jpmpi_profile.c}) that times the call around {@code PMPI_X} and applies the
 * function's byte/matrix semantics, which this class maps from the function's name (its
 * {@code base} for the large-count {@code _c} variants) to the helpers of the hand-written
 * recorder (profilers/src/main/c/recorder.c).
 *
 * <p>Recorded: every function of the implementation that returns {@code int}, except the handle
 * conversions; {@link #HAND_WRITTEN} functions are wrapped by the recorder itself.
 */
public final class ProfileEmitter {
    static final String HEADER = "/* generated from specs/mpi-functions.json by io.jpmpi.bindings.c.ProfileEmitter"
            + " - do not edit */\n";
    /** Lifecycle functions the recorder wraps by hand (they start, end and flush the profile). */
    public static final Set<String> HAND_WRITTEN = Set.of("MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort",
            "MPI_Pcontrol");

    /** What a wrapper does besides timing: code before and after the PMPI call, and whether it moves bytes. */
    record Semantics(String pre, String post, boolean bytes) {
    }

    private static final Map<String, Semantics> SEMANTICS = semantics();

    private final String impl;
    private final Implementation implementation;
    private final List<MpiFunction> recorded;

    public ProfileEmitter(MpiSpec spec, String impl) {
        this.impl = impl;
        this.implementation = spec.implementations().get(impl);
        if (implementation == null) {
            throw new IllegalArgumentException("the spec has no implementation '" + impl + "'");
        }
        List<MpiFunction> r = new ArrayList<>();
        for (MpiFunction f : spec.functionsOf(impl)) {
            if (records(f)) {
                r.add(f);
            }
        }
        this.recorded = List.copyOf(r);
    }

    private boolean records(MpiFunction f) {
        if (!f.returnType(impl).equals("int") || f.name().matches(".*_(c2f|f2c|c2f08|f082c|f2f08|f082f)$")) {
            return false;
        }
        return !f.isVarargs() || f.name().equals("MPI_Pcontrol");
    }

    /** The names of the recorded functions, in id order. */
    public List<String> functionNames() {
        return recorded.stream().map(MpiFunction::name).toList();
    }

    /** The semantics of {@code name} (null: timing only), for tests. */
    static Semantics semanticsOf(MpiFunction f) {
        return SEMANTICS.get(semanticName(f));
    }

    public Map<String, String> emit() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("jpmpi_profile_ids.h", ids());
        files.put("jpmpi_profile.c", wrappers());
        files.put("jpmpi_settings.h", SettingsHeaderEmitter.emit());
        return files;
    }

    private String ids() {
        StringBuilder h = new StringBuilder(HEADER);
        h.append("/* The functions the profile recorder records for ").append(implementation.name()).append(' ')
                .append(implementation.version()).append(". */\n")
                .append("#ifndef JPMPI_PROFILE_IDS_H\n#define JPMPI_PROFILE_IDS_H\n\n")
                .append("#define JP_NFUNC ").append(recorded.size()).append("\n\nenum jp_function {\n");
        for (int i = 0; i < recorded.size(); i++) {
            h.append("    JP_F_").append(recorded.get(i).name()).append(" = ").append(i).append(",\n");
        }
        return h.append("};\n\n#endif\n").toString();
    }

    private String wrappers() {
        StringBuilder c = new StringBuilder(HEADER);
        c.append("#include \"recorder.h\"\n\n");
        c.append("/* Deprecated functions are recorded like the others. */\n");
        c.append("#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n");
        for (MpiFunction f : recorded) {
            c.append("#undef ").append(f.name()).append("\n#undef ").append(f.pmpiName()).append('\n');
        }
        c.append("\nconst char jp_impl[] = \"").append(impl).append(' ').append(implementation.version())
                .append("\";\n");
        c.append("const char *const jp_names[JP_NFUNC] = {\n");
        for (MpiFunction f : recorded) {
            c.append("    \"").append(f.name()).append("\",\n");
        }
        c.append("};\n");
        for (MpiFunction f : recorded) {
            if (HAND_WRITTEN.contains(f.name())) {
                continue;
            }
            Semantics s = semanticsOf(f);
            StringBuilder args = new StringBuilder();
            for (var p : f.parameters()) {
                args.append(args.isEmpty() ? "" : ", ").append(DispatcherEmitter.cName(p));
            }
            c.append('\n').append("JP_EXPORT ").append(DispatcherEmitter.signature(f, impl, f.name(), true))
                    .append("\n{\n    struct jp_call c;\n    jp_begin(&c);\n");
            if (s != null && !s.pre().isEmpty()) {
                c.append("    ").append(s.pre()).append('\n');
            }
            c.append("    int rc = ").append(f.pmpiName()).append('(').append(args).append(");\n");
            c.append("    jp_stop(&c);\n");
            if (s != null && !s.post().isEmpty()) {
                c.append("    ").append(s.post()).append('\n');
            }
            c.append("    jp_end(&c, JP_F_").append(f.name()).append(", ").append(s != null && s.bytes() ? 1 : 0)
                    .append(");\n    return rc;\n}\n");
        }
        return c.toString();
    }

    /**
     * The key of a function in the semantics table: its base for {@code _c} variants; the blocking
     * name for non-blocking collectives ({@code MPI_Ibcast} → {@code MPI_Bcast}); persistent
     * collectives keep their {@code _init} name.
     */
    private static String semanticName(MpiFunction f) {
        String name = f.largeCount() && f.base() != null ? f.base() : f.name();
        if (f.category() == Category.COLL_NONBLOCKING && name.startsWith("MPI_I")) {
            return "MPI_" + Character.toUpperCase(name.charAt(5)) + name.substring(6);
        }
        return name;
    }

    private static Map<String, Semantics> semantics() {
        Map<String, Semantics> m = new LinkedHashMap<>();
        String ok = "if (rc == MPI_SUCCESS) ";
        // point-to-point
        for (String n : List.of("MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend")) {
            m.put(n, post("jp_send(&c, a_count, a_datatype, a_dest, a_comm);"));
        }
        for (String n : List.of("MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend")) {
            m.put(n, post(ok + "jp_isend(&c, a_count, a_datatype, a_dest, a_comm, *a_request);"));
        }
        for (String n : List.of("MPI_Recv", "MPI_Irecv")) {
            m.put(n, post("jp_recv_from(&c, a_count, a_datatype, a_source);"));
        }
        for (String n : List.of("MPI_Mrecv", "MPI_Imrecv")) {
            m.put(n, post("jp_recv(&c, a_count, a_datatype);"));
        }
        m.put("MPI_Sendrecv", post("jp_send(&c, a_sendcount, a_sendtype, a_dest, a_comm); "
                + "jp_recv_from(&c, a_recvcount, a_recvtype, a_source);"));
        m.put("MPI_Sendrecv_replace", post("jp_send(&c, a_count, a_datatype, a_dest, a_comm); "
                + "jp_recv_from(&c, a_count, a_datatype, a_source);"));
        m.put("MPI_Isendrecv", post("jp_recv_from(&c, a_recvcount, a_recvtype, a_source);\n    "
                + ok + "jp_isend(&c, a_sendcount, a_sendtype, a_dest, a_comm, *a_request);"));
        m.put("MPI_Isendrecv_replace", post("jp_recv_from(&c, a_count, a_datatype, a_source);\n    "
                + ok + "jp_isend(&c, a_count, a_datatype, a_dest, a_comm, *a_request);"));
        for (String n : List.of("MPI_Send_init", "MPI_Bsend_init", "MPI_Ssend_init", "MPI_Rsend_init")) {
            m.put(n, new Semantics("", ok + "jp_psend_init(a_count, a_datatype, a_dest, a_comm, *a_request);", false));
        }
        m.put("MPI_Recv_init", new Semantics("", ok + "jp_precv_init(a_count, a_datatype, *a_request);", false));
        m.put("MPI_Psend_init", new Semantics("", ok
                + "jp_psend_init((int64_t)a_partitions * a_count, a_datatype, a_dest, a_comm, *a_request);", false));
        m.put("MPI_Precv_init", new Semantics("", ok
                + "jp_precv_init((int64_t)a_partitions * a_count, a_datatype, *a_request);", false));
        m.put("MPI_Start", post(ok + "jp_start(&c, 1, a_request);"));
        m.put("MPI_Startall", post(ok + "jp_start(&c, a_count, a_array_of_requests);"));
        // completion: the handles are saved first (only while requests are tracked)
        String one = "struct jp_reqs s; jp_reqs_save(&s, 1, a_request);";
        String many = "struct jp_reqs s; jp_reqs_save(&s, a_count, a_array_of_requests);";
        String some = "struct jp_reqs s; jp_reqs_save(&s, a_incount, a_array_of_requests);";
        String release = "\n    jp_reqs_release(&s);";
        m.put("MPI_Wait", new Semantics(one, ok + "jp_reqs_done(&c, &s, 1, NULL);" + release, false));
        m.put("MPI_Test", new Semantics(one, "if (rc == MPI_SUCCESS && *a_flag) jp_reqs_done(&c, &s, 1, NULL);"
                + release, false));
        m.put("MPI_Waitall", new Semantics(many, ok + "jp_reqs_done(&c, &s, a_count, NULL);" + release, false));
        m.put("MPI_Testall", new Semantics(many, "if (rc == MPI_SUCCESS && *a_flag) jp_reqs_done(&c, &s, a_count, NULL);"
                + release, false));
        m.put("MPI_Waitany", new Semantics(many, "if (rc == MPI_SUCCESS && *a_index != MPI_UNDEFINED) "
                + "jp_reqs_done(&c, &s, 1, a_index);" + release, false));
        m.put("MPI_Testany", new Semantics(many, "if (rc == MPI_SUCCESS && *a_flag && *a_index != MPI_UNDEFINED) "
                + "jp_reqs_done(&c, &s, 1, a_index);" + release, false));
        for (String n : List.of("MPI_Waitsome", "MPI_Testsome")) {
            m.put(n, new Semantics(some, ok + "jp_reqs_done(&c, &s, *a_outcount, a_array_of_indices);" + release,
                    false));
        }
        m.put("MPI_Request_free", new Semantics("MPI_Request jp_req = *a_request;",
                ok + "jp_request_freed(&c, jp_req);", false));
        m.put("MPI_Cancel", new Semantics("", ok + "jp_request_cancelled(*a_request);", false));
        // collectives (the non-blocking ones map here too)
        Map<String, String> coll = new LinkedHashMap<>();
        coll.put("MPI_Bcast", "jp_bcast(&c, a_count, a_datatype, a_root, a_comm);");
        coll.put("MPI_Gather", "jp_gather(&c, a_sendcount, a_sendtype, a_recvcount, a_recvtype, a_root, a_comm);");
        coll.put("MPI_Gatherv", "jp_gatherv(&c, a_sendcount, a_sendtype, JP_ARR(a_recvcounts), a_recvtype, "
                + "a_root, a_comm);");
        coll.put("MPI_Scatter", "jp_scatter(&c, a_sendcount, a_sendtype, a_recvcount, a_recvtype, a_root, "
                + "a_comm);");
        coll.put("MPI_Scatterv", "jp_scatterv(&c, JP_ARR(a_sendcounts), a_sendtype, a_recvcount, a_recvtype, "
                + "a_root, a_comm);");
        coll.put("MPI_Allgather", "jp_allgather(&c, a_sendbuf, a_sendcount, a_sendtype, a_recvcount, a_recvtype, a_comm);");
        coll.put("MPI_Allgatherv", "jp_allgatherv(&c, a_sendbuf, a_sendcount, a_sendtype, JP_ARR(a_recvcounts), "
                + "a_recvtype, a_comm);");
        coll.put("MPI_Alltoall", "jp_alltoall(&c, a_sendbuf, a_sendcount, a_sendtype, a_recvcount, a_recvtype, a_comm);");
        coll.put("MPI_Alltoallv", "jp_alltoallv(&c, a_sendbuf, JP_ARR(a_sendcounts), a_sendtype, JP_ARR(a_recvcounts), "
                + "a_recvtype, a_comm);");
        coll.put("MPI_Alltoallw", "jp_alltoallw(&c, a_sendbuf, JP_ARR(a_sendcounts), JP_TYPES(a_sendtypes), "
                + "JP_ARR(a_recvcounts), JP_TYPES(a_recvtypes), a_comm);");
        coll.put("MPI_Reduce", "jp_reduce(&c, a_count, a_datatype, a_root, a_comm);");
        coll.put("MPI_Allreduce", "jp_allreduce(&c, a_count, a_datatype, a_comm);");
        coll.put("MPI_Reduce_scatter", "jp_reduce_scatter(&c, JP_ARR(a_recvcounts), a_datatype, a_comm);");
        coll.put("MPI_Reduce_scatter_block", "jp_reduce_scatter_block(&c, a_recvcount, a_datatype, a_comm);");
        coll.put("MPI_Scan", "jp_scan(&c, a_count, a_datatype, a_comm, 0);");
        coll.put("MPI_Exscan", "jp_scan(&c, a_count, a_datatype, a_comm, 1);");
        coll.put("MPI_Neighbor_allgather", "jp_neighbor(&c, a_sendcount, a_sendtype, a_recvcount, a_recvtype, a_comm);");
        coll.put("MPI_Neighbor_alltoall", "jp_neighbor(&c, a_sendcount, a_sendtype, a_recvcount, a_recvtype, a_comm);");
        coll.put("MPI_Neighbor_allgatherv", "jp_neighborv(&c, a_sendcount, a_sendtype, NULL, sizeof(int), "
                + "JP_ARR(a_recvcounts), a_recvtype, 0, a_comm);");
        coll.put("MPI_Neighbor_alltoallv", "jp_neighborv(&c, 0, a_sendtype, JP_ARR(a_sendcounts), JP_ARR(a_recvcounts), "
                + "a_recvtype, 0, a_comm);");
        coll.put("MPI_Neighbor_alltoallw", "jp_neighborw(&c, JP_ARR(a_sendcounts), JP_TYPES(a_sendtypes), "
                + "JP_ARR(a_recvcounts), JP_TYPES(a_recvtypes), a_comm);");
        coll.forEach((n, code) -> {
            // Blocking and non-blocking: bytes and matrix at the call (the post).
            m.put(n, post(ok + code));
            // Persistent: bytes kept with the request, counted at each start; no matrix.
            m.put(n + "_init", new Semantics("c.nomatrix = 1;", ok + "{ " + code + " jp_pcoll_init(&c, *a_request); }",
                    false));
        });
        m.put("MPI_Barrier_init", new Semantics("", ok + "jp_pcoll_init(&c, *a_request);", false));
        // one-sided, origin side
        String origin = "(int64_t)a_origin_count * jp_tsize(&c, a_origin_datatype)";
        String result = "(int64_t)a_result_count * jp_tsize(&c, a_result_datatype)";
        for (String n : List.of("MPI_Put", "MPI_Rput", "MPI_Accumulate", "MPI_Raccumulate")) {
            m.put(n, post("jp_rma(&c, " + origin + ", 0, a_target_rank, a_win);"));
        }
        for (String n : List.of("MPI_Get", "MPI_Rget")) {
            m.put(n, post("jp_rma(&c, 0, " + origin + ", a_target_rank, a_win);"));
        }
        for (String n : List.of("MPI_Get_accumulate", "MPI_Rget_accumulate")) {
            m.put(n, post("jp_rma(&c, " + origin + ", " + result + ", a_target_rank, a_win);"));
        }
        m.put("MPI_Fetch_and_op", post("jp_rma(&c, jp_tsize(&c, a_datatype), jp_tsize(&c, a_datatype), a_target_rank, a_win);"));
        m.put("MPI_Compare_and_swap", post("jp_rma(&c, 2 * jp_tsize(&c, a_datatype), jp_tsize(&c, a_datatype), "
                + "a_target_rank, a_win);"));
        // file I/O: bytes read count as received, written as sent
        for (String kind : List.of("read", "write")) {
            String code = kind.equals("read") ? "jp_recv(&c, a_count, a_datatype);" : "jp_out(&c, a_count, a_datatype);";
            for (String v : List.of("", "_all", "_at", "_at_all", "_shared", "_ordered", "_all_begin", "_at_all_begin",
                    "_ordered_begin")) {
                m.put("MPI_File_" + kind + v, post(code));
            }
            for (String v : List.of("", "_all", "_at", "_at_all", "_shared")) {
                m.put("MPI_File_i" + kind + v, post(code));
            }
        }
        // handles going away
        m.put("MPI_Comm_free", new Semantics("jp_comm_freed(*a_comm);", "", false));
        m.put("MPI_Comm_disconnect", new Semantics("jp_comm_freed(*a_comm);", "", false));
        m.put("MPI_Win_free", new Semantics("jp_win_freed(*a_win);", "", false));
        m.put("MPI_Type_free", new Semantics("", "jp_type_freed();", false));
        return m;
    }

    private static Semantics post(String code) {
        return new Semantics("", code, true);
    }
}
