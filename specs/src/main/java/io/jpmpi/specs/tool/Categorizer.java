package io.jpmpi.specs.tool;

import io.jpmpi.specs.Category;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Derives a function's category from its name, by the chapters of the MPI standard. Rules are
 * tried in order; the overrides file wins over all of them. The large-count {@code _c} variant
 * takes the category of its base function.
 */
final class Categorizer {
    private record Rule(Pattern pattern, Category category) {
    }

    private static final Set<String> COLLECTIVES = Set.of("Barrier", "Bcast", "Gather", "Gatherv", "Scatter",
            "Scatterv", "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce",
            "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan", "Neighbor_allgather",
            "Neighbor_allgatherv", "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw");

    private static final List<Rule> RULES = List.of(
            rule("^T_", Category.TOOLS),
            // Handle conversion before the object families (Comm_c2f is not a communicator operation).
            rule("_(f2c|c2f|f082c|c2f08|f082f|f2f08)$", Category.OTHER),
            rule("^(Attr_|Keyval_)|_(get|set|delete)_attr$|_(create|free)_keyval$", Category.ATTRIBUTE),
            rule("^Errhandler_|_(get|set|create|call)_errhandler$|^(Add_|Delete_)?error_|^Error_",
                    Category.ERROR),
            rule("^Session_", Category.SESSION),
            rule("^(File_|Register_datarep)", Category.IO),
            rule("^(Win_|Put$|Get$|Accumulate$|Get_accumulate$|Fetch_and_op$|Compare_and_swap$|Rput$|Rget$"
                    + "|Raccumulate$|Rget_accumulate$)", Category.ONE_SIDED),
            rule("^(Send|Bsend|Ssend|Rsend|Recv|Sendrecv|Sendrecv_replace|Probe|Mprobe|Mrecv)$",
                    Category.P2P_BLOCKING),
            rule("^(Isend|Ibsend|Issend|Irsend|Irecv|Iprobe|Improbe|Imrecv|Isendrecv|Isendrecv_replace)$",
                    Category.P2P_NONBLOCKING),
            rule("^(Send_init|Bsend_init|Ssend_init|Rsend_init|Recv_init|Psend_init|Precv_init|Pready"
                    + "|Pready_range|Pready_list|Parrived)$", Category.P2P_PERSISTENT),
            rule("^(Wait|Waitall|Waitany|Waitsome|Test|Testall|Testany|Testsome|Start|Startall|Cancel"
                    + "|Request_free|Request_get_status|Test_cancelled)$|^Grequest_", Category.REQUEST_COMPLETION),
            rule("^Group_", Category.GROUP),
            rule("^(Cart|Graph|Dist_graph|Dims_create$|Topo_test$)", Category.TOPOLOGY),
            rule("^(Comm_|Intercomm_|Open_port$|Close_port$|Publish_name$|Unpublish_name$|Lookup_name$)",
                    Category.COMMUNICATOR),
            rule("^Type_|^(Pack|Unpack|Pack_size|Pack_external|Unpack_external|Pack_external_size|Get_address"
                    + "|Address|Get_count|Get_elements|Get_elements_x|Status_set_elements|Status_set_elements_x"
                    + "|Aint_add|Aint_diff)$", Category.DATATYPE),
            rule("^Info_", Category.INFO),
            rule("^(Init|Init_thread|Finalize|Initialized|Finalized|Abort|Query_thread|Is_thread_main)$",
                    Category.INIT_FINALIZE));

    private final Map<String, Category> overrides;

    Categorizer(Map<String, Category> overrides) {
        this.overrides = overrides;
    }

    private static Rule rule(String regex, Category c) {
        return new Rule(Pattern.compile(regex), c);
    }

    /** The category of the non-{@code _c} function {@code name} (MPI_ or MPIX_ prefix). */
    Category categorize(String name) {
        Category o = overrides.get(name);
        if (o != null) {
            return o;
        }
        String stem = name.replaceFirst("^MPIX?_", "");
        for (String coll : COLLECTIVES) {
            if (stem.equals(coll) || stem.equals("Reduce_local") && coll.equals("Reduce")) {
                return Category.COLL_BLOCKING;
            }
            if (stem.equals("I" + coll.substring(0, 1).toLowerCase() + coll.substring(1))) {
                return Category.COLL_NONBLOCKING;
            }
            if (stem.equals(coll + "_init")) {
                return Category.COLL_PERSISTENT;
            }
        }
        for (Rule r : RULES) {
            if (r.pattern.matcher(stem).find()) {
                return r.category;
            }
        }
        return Category.OTHER;
    }
}
