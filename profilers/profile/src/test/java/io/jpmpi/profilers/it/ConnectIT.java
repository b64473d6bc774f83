package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two groups of one job joined by MPI_Comm_connect / MPI_Comm_accept (connect.c): world 0 opens a
 * port and sends its name (256 chars) to world 2; {0, 1} accept, {2, 3} connect; over the new
 * inter-communicator A's local rank l sends 8 ints to B's local rank l (0->2, 1->3) and gets 4
 * doubles back, then an MPI_Allreduce of 3 ints (12 bytes to and from each of the 2 remote
 * processes, bytes only, as on any inter-communicator); MPI_Comm_disconnect, MPI_Close_port. The
 * remote processes are of the same MPI_COMM_WORLD, so the point-to-point traffic is in the matrix
 * under their world ranks. Where the MPI cannot open a port (Debian's MPICH 4.0.2 with its UCX
 * netmod: "not supported with ucx netmod", without jpmpi too) the case is a skip that says so.
 */
class ConnectIT {
    static final int RANKS = 4;
    static final int PORT_BYTES = 256;
    private static final Map<Impl, String> UNSUPPORTED = new ConcurrentHashMap<>();

    static String connectProblem(Impl impl) {
        return UNSUPPORTED.computeIfAbsent(impl, i -> {
            Result plain = MpiRun.on(i).ranks(RANKS).run("connect");
            return plain.exit() == 0 ? "" : plain.err().stream().filter(l -> l.contains("not supported")
                    || l.contains("port")).findFirst().orElse("exit " + plain.exit());
        });
    }

    static Expected expected() {
        Expected e = new Expected(RANKS).startup().finalizeAll();
        for (int r = 0; r < RANKS; r++) {
            int l = r % 2;
            e.call(r, "MPI_Comm_split").call(r, "MPI_Comm_disconnect").call(r, "MPI_Comm_free");
            e.io(r, "MPI_Allreduce", 24, 24);
            if (r < 2) {
                e.call(r, "MPI_Comm_accept").send(r, "MPI_Send", 2 + l, 32, 1).io(r, "MPI_Recv", 0, 32);
            } else {
                e.call(r, "MPI_Comm_connect").io(r, "MPI_Recv", 0, 32).send(r, "MPI_Send", l, 32, 1);
            }
        }
        e.call(0, "MPI_Open_port").call(0, "MPI_Close_port").send(0, "MPI_Send", 2, PORT_BYTES, 1);
        return e.io(2, "MPI_Recv", 0, PORT_BYTES);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void connectAndAccept(Impl impl, Level level) {
        String problem = connectProblem(impl);
        assumeTrue(problem.isEmpty(), () -> impl.displayName + " cannot connect and accept here, without jpmpi too: "
                + problem);
        Checks.exactly(ProfileRun.run(impl, level, RANKS, "connect"), level, "connect", expected());
    }
}
