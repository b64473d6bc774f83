package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The Java twin of native-stubs' logtool.c: logs "NAME enter|exit MPI_Send|MPI_Recv|MPI_Barrier"
 * into the per-rank log $JPMPI_TEST_LOG/rank<r>.log that the C logging tools append to (O_APPEND,
 * one write per line), so the log shows how Java and C levels nest. NAME is the jar's file name
 * without ".jar".
 */
public final class LogLevel extends Interceptor {
    private static final String DIR = System.getenv("JPMPI_TEST_LOG");
    private volatile Path file;
    private String name;

    private void log(String what, String function) {
        if (DIR == null || DIR.isEmpty()) {
            return;
        }
        Path f = file;
        if (f == null) {
            String jar = Path.of(level().entry()).getFileName().toString();
            name = jar.substring(0, jar.length() - ".jar".length());
            f = Path.of(DIR, "rank" + level().worldRank() + ".log");
            file = f;
        }
        try {
            Files.write(f, (name + " " + what + " " + function + "\n").getBytes(StandardCharsets.UTF_8),
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
        log("enter", "MPI_Send");
        int rc = pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);
        log("exit", "MPI_Send");
        return rc;
    }

    @Override
    public int MPI_Recv(long buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, long status) {
        log("enter", "MPI_Recv");
        int rc = pmpi().MPI_Recv(buf, count, datatype, source, tag, comm, status);
        log("exit", "MPI_Recv");
        return rc;
    }

    @Override
    public int MPI_Barrier(MPI_Comm comm) {
        log("enter", "MPI_Barrier");
        int rc = pmpi().MPI_Barrier(comm);
        log("exit", "MPI_Barrier");
        return rc;
    }
}
