/*
 * testlog.h - the per-rank log the test tools share: $JPMPI_TEST_LOG/rank<r>.log, opened with
 * O_APPEND and written with one write() per line, so that the lines of all levels in one process
 * interleave in call order. Header-only (static), so every tool stays one ordinary PMPI library.
 */
#ifndef JPMPI_TESTLOG_H
#define JPMPI_TESTLOG_H

#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Appends `line` (which ends in '\n') to this rank's log; nothing without JPMPI_TEST_LOG. The rank
 * comes from PMPI_Comm_rank, so logging never shows up as an MPI_Comm_rank call of a level. */
static void testlog_write(const char *line)
{
    const char *dir = getenv("JPMPI_TEST_LOG");
    if (dir == NULL || *dir == '\0') {
        return;
    }
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.log", dir, rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        perror(path);
        return;
    }
    size_t n = strlen(line);
    if (write(fd, line, n) != (ssize_t)n) {
        perror(path);
    }
    close(fd);
}

#endif
