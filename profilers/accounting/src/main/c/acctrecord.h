/*
 * acctrecord.h - the accounting tool's record, schema jpmpi-accounting-1 (profilers/accounting/ACCOUNTING.md):
 * one line of JSON, byte for byte the text the Java model (AccountingRecord.toJson) makes of the
 * same figures, so that the C writer and the Java reader agree. No MPI here: the level
 * (accounting.c) fills a record, and a test program (src/test/c/acctfmt.c) holds the text
 * against the Java side.
 */
#ifndef JPMPI_ACCTRECORD_H
#define JPMPI_ACCTRECORD_H

#include <stddef.h>
#include <stdint.h>

#define ACCT_SCHEMA "jpmpi-accounting-1"
/* Functions in the record's `top`. */
#define ACCT_TOP 5
/* Bytes of a record, line end included: at most what a pipe or FIFO takes whole (PIPE_BUF). */
#define ACCT_MAX_RECORD 4096
/* Counters of the hwc tool taken, and the size of an event name with its NUL. */
#define ACCT_MAX_EVENTS 64
#define ACCT_EVENT_NAME 32

struct acct_top {
    const char *function;
    double seconds;             /* summed over the ranks */
    uint64_t calls;             /* sampled: the samples, which order ties but are not written */
};

struct acct_event {
    char name[ACCT_EVENT_NAME];
    uint64_t total, mpi;        /* over the ranks and their threads; mpi: inside MPI calls */
};

struct acct_record {
    const char *job, *user, *exe;
    const char *step;           /* the job step (SLURM_STEP_ID); NULL: left out */
    const char *host, *mpi;     /* NULL: left out */
    int has_start;
    int64_t start, end;         /* Unix seconds */
    double wall_s;
    int ranks, nodes;
    double core_h, mpi_pct;
    int ntop;
    struct acct_top top[ACCT_TOP];
    int64_t samples;            /* -1: counted (top with calls); else sampled: top without calls, and this */
    int has_hwc;                /* the counters tool was on: the hwc object */
    int hardware;
    int nevents;
    const struct acct_event *events;
    double acct_ms;             /* NaN: left out */
};

/*
 * The functions with the most seconds (then the most calls, then by name), only those called, at
 * most ACCT_TOP of them, into top; returns how many.
 */
int acct_pick_top(int n, const char *const *names, const double *seconds, const uint64_t *calls,
                  struct acct_top *top);

/* The record's line without its line end into buf; returns its length (cap or more: it did not fit). */
size_t acct_json(const struct acct_record *r, char *buf, size_t cap);

/*
 * The line as the level appends it, with its line end: without the counters when it would be over
 * ACCT_MAX_RECORD bytes with them (*dropped = 1). Returns its length, line end included (cap or
 * more: it did not fit).
 */
size_t acct_line(const struct acct_record *r, char *buf, size_t cap, int *dropped);

/* v rounded half up to `scale` decimals, as the Java side writes numbers; returns the length. */
size_t acct_decimal(double v, int scale, char *buf, size_t cap);

#endif
