package io.jpmpi.profilers.report;

/**
 * What was run: the job id from the batch system or launcher (null if none was found), the
 * executable, the MPI library ("openmpi 4.1.4"), the number of distinct hosts, the UTC start time
 * (ISO-8601) and the wall time from the end of MPI_Init to the profile's end, in seconds.
 */
public record Job(String id, String executable, String mpi, int hosts, String start, double wallSeconds) {
}
