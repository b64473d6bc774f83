package io.jpmpi.testsupport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the pingpong programs (src/test/c/programs/pingpong*.c, .cpp, .f90) do, to compare a run
 * with: their exact calls per rank and their result line.
 */
public final class Pingpong {
    /** The C, C++ and the two Fortran versions: the same calls, the same output. */
    public static final List<String> PROGRAMS = List.of("pingpong", "pingpong_cxx", "pingpong_mpif", "pingpong_usempi");
    public static final List<String> FORTRAN = List.of("pingpong_mpif", "pingpong_usempi");

    private Pingpong() {
    }

    /** Rank 0's line: depends only on K and the number of ranks. */
    public static String resultLine(int ranks, int k) {
        int echoSum = 0;
        for (int i = 1; i <= k; i++) {
            echoSum += i * 7 + 1 + 1000;
        }
        return "pingpong result: ranks=" + ranks + " K=" + k + " echo_sum=" + echoSum + " allreduce="
                + ranks * (ranks + 1) / 2;
    }

    /**
     * What counttool.c reports on `rank` when every call of the program reaches it once.
     * `commRank` is its MPI_Comm_rank count: the program's 1, plus 1 for every counting level
     * above it that saw MPI_Init (each asks PMPI_Comm_rank once, which reaches the next level).
     */
    public static Map<String, Long> counts(int k, int rank, long commRank) {
        long pingpong = rank < 2 ? k : 0;
        return counts(1, pingpong, pingpong, 1, 1, commRank, 1);
    }

    /** The line counttool.c prints for a level that no call of the program reached. */
    public static Map<String, Long> untouched() {
        return counts(0, 0, 0, 0, 0, 0, 0);
    }

    public static Map<String, Long> counts(long init, long send, long recv, long barrier, long allreduce, long commRank,
                                    long finalize) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("MPI_Init", init);
        m.put("MPI_Send", send);
        m.put("MPI_Recv", recv);
        m.put("MPI_Barrier", barrier);
        m.put("MPI_Allreduce", allreduce);
        m.put("MPI_Comm_rank", commRank);
        m.put("MPI_Finalize", finalize);
        return m;
    }

    /**
     * The log the logging tools `names` (liblog<name>.so, listed top first) write on `rank` for
     * `pingpong K`: each wrapped call enters the levels top down and leaves them bottom up.
     */
    public static List<String> log(int k, int rank, List<String> names) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < k && rank < 2; i++) {
            if (rank == 0) {
                nest(lines, names, "MPI_Send");
                nest(lines, names, "MPI_Recv");
            } else {
                nest(lines, names, "MPI_Recv");
                nest(lines, names, "MPI_Send");
            }
        }
        nest(lines, names, "MPI_Barrier");
        return lines;
    }

    private static void nest(List<String> lines, List<String> names, String function) {
        for (String n : names) {
            lines.add(n + " enter " + function);
        }
        for (String n : names.reversed()) {
            lines.add(n + " exit " + function);
        }
    }
}
