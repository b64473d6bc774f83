package io.jpmpi.profilers.report;

/**
 * What was run: the job id from the batch system or launcher (null if none was found), the
 * executable, the MPI library ("openmpi 4.1.4"), the number of distinct hosts, the UTC start time
 * (ISO-8601), the wall time from the end of MPI_Init to the profile's end, in seconds, and the job
 * step (Slurm's step id: "0", "batch"; null where none is named).
 */
public record Job(String id, String executable, String mpi, int hosts, String start, double wallSeconds,
                  String step) {
    /** A job that names no step. */
    public Job(String id, String executable, String mpi, int hosts, String start, double wallSeconds) {
        this(id, executable, mpi, hosts, start, wallSeconds, null);
    }
}
