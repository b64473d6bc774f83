package io.jpmpi.profilers.it;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.testsupport.MpiRun.Impl;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MPI-IO (mpiio.c): bytes written count as sent, bytes read as received (PROFILE.md: file I/O,
 * bytes read or written), 64 each per rank; a short read counts what was read (16 and 8 bytes of
 * the 64 asked for, one with MPI_STATUS_IGNORE); no matrix. The MPI library's own traffic for the file
 * (the collective open and close, the aggregation) is not the application's and must not show.
 */
class MpiIoIT {
    static final int RANKS = 4;

    static Expected expected() {
        Expected e = new Expected(RANKS).startup().finalizeAll();
        for (int r = 0; r < RANKS; r++) {
            e.call(r, "MPI_File_open").call(r, "MPI_File_sync", 2).call(r, "MPI_Barrier").call(r, "MPI_Get_count", 2)
                    .call(r, "MPI_File_close");
            e.io(r, "MPI_File_write_at", 64, 0).io(r, "MPI_File_read_at", 0, 64).io(r, "MPI_File_read_at", 0, 16)
                    .io(r, "MPI_File_read_at", 0, 8);
        }
        return e.call(0, "MPI_File_delete");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void fileIo(Impl impl, Level level) {
        Checks.exactly(ProfileRun.run(impl, level, RANKS, "mpiio"), level, "mpiio", expected());
    }
}
