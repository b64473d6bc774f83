package io.jpmpi.layering;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import io.jpmpi.layering.generated.Mpi;
import io.jpmpi.layering.runtime.CallMarks;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * The level an interceptor belongs to, and small helpers for a tool's own work (type sizes, ranks,
 * sizes, counts, its own communicators). They call the MPI library directly: no level of the chain,
 * this one included, sees them, and they never allocate. See {@link Interceptor#library()}.
 */
public final class Level {
    private final int index;
    private final String entry;
    private final String implementation;
    private final Mpi library;
    private final Consumer<String> message;
    private final int verbosity;

    /** Made by the runtime; {@code verbosity}: see {@link #verbosity()}. */
    public Level(int index, String entry, String implementation, Mpi library, Consumer<String> message,
                 int verbosity) {
        this.index = index;
        this.entry = entry;
        this.implementation = implementation;
        this.library = library;
        this.message = message;
        this.verbosity = verbosity;
    }

    /**
     * What the user asked jpmpi to say: 0, the default, means nothing on the application's streams
     * when all is well (a tool's figures go to its files); 1 ({@code v} in the tool list, {@code jpmpi
     * run -v}) and 2 ({@code vv}) ask for more. A tool's own summary lines belong to 1 and up.
     */
    public int verbosity() {
        return verbosity;
    }

    /** Position in the chain, 0 = top. */
    public int index() {
        return index;
    }

    /** The entry-list item (the jar's path). */
    public String entry() {
        return entry;
    }

    /** The MPI library, e.g. "openmpi 4.1.4" or "mpich 4.0.2". */
    public String implementation() {
        return implementation;
    }

    /** Prints one line on stderr, after "jpmpi (rank r): level k 'entry': ". */
    public void message(String line) {
        message.accept("level " + index + " '" + entry + "': " + line);
    }

    /** MPI_Type_size of a datatype handle. */
    public int typeSize(MPI_Datatype datatype) {
        MemorySegment out = CallMarks.state().scratch;
        check(library.MPI_Type_size(datatype, out.address()), "MPI_Type_size");
        return out.get(JAVA_INT, 0);
    }

    /** MPI_Comm_rank. */
    public int commRank(MPI_Comm comm) {
        MemorySegment out = CallMarks.state().scratch;
        check(library.MPI_Comm_rank(comm, out.address()), "MPI_Comm_rank");
        return out.get(JAVA_INT, 0);
    }

    /** MPI_Comm_size. */
    public int commSize(MPI_Comm comm) {
        MemorySegment out = CallMarks.state().scratch;
        check(library.MPI_Comm_size(comm, out.address()), "MPI_Comm_size");
        return out.get(JAVA_INT, 0);
    }

    /** The rank in MPI_COMM_WORLD. */
    public int worldRank() {
        return commRank(Constants.MPI_COMM_WORLD);
    }

    /** MPI_Get_count of a status (an address, see {@link Status}) for a datatype. */
    public int count(long status, MPI_Datatype datatype) {
        MemorySegment out = CallMarks.state().scratch;
        check(library.MPI_Get_count(status, datatype, out.address()), "MPI_Get_count");
        return out.get(JAVA_INT, 0);
    }

    /** MPI_Initialized. */
    public boolean initialized() {
        MemorySegment out = CallMarks.state().scratch;
        check(library.MPI_Initialized(out.address()), "MPI_Initialized");
        return out.get(JAVA_INT, 0) != 0;
    }

    /**
     * MPI_Comm_dup in the library: a communicator of the tool's own (collective over comm), so its
     * traffic never mixes with the application's. Free it with {@link #freeComm}.
     */
    public MPI_Comm dupComm(MPI_Comm comm) {
        MemorySegment out = CallMarks.state().scratch;
        check(library.MPI_Comm_dup(comm, out.address()), "MPI_Comm_dup");
        return MPI_Comm.read(out.address());
    }

    /**
     * MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED) in the library: the processes of comm that
     * share memory with this one (one node). Collective over comm; free it with {@link #freeComm}.
     */
    public MPI_Comm sharedMemoryComm(MPI_Comm comm) {
        MemorySegment out = CallMarks.state().scratch;
        check(library.MPI_Comm_split_type(comm, Constants.MPI_COMM_TYPE_SHARED, 0, Constants.MPI_INFO_NULL,
                out.address()), "MPI_Comm_split_type");
        return MPI_Comm.read(out.address());
    }

    /** MPI_Comm_free of a communicator this level made (collective). */
    public void freeComm(MPI_Comm comm) {
        MemorySegment in = CallMarks.state().scratch;
        comm.write(in.address());
        check(library.MPI_Comm_free(in.address()), "MPI_Comm_free");
    }

    /** MPI_Wtime of the library. */
    public double wtime() {
        return library.MPI_Wtime();
    }

    /**
     * The MPI library itself, for a tool's own calls that no helper here covers (its reductions,
     * its gathers at MPI_Finalize): no level sees them, this one included.
     */
    public Mpi library() {
        return library;
    }

    static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned MPI error " + rc);
        }
    }
}
