/*
 * acctfmt.c - the accounting record's text (acctrecord.c) for a record given on stdin, so that
 * AccountingLineTest can hold it against the Java model's. One item per line, fields separated by
 * tabs; texts as hex of their bytes, numbers with decimals in C's hexadecimal float syntax (Java's
 * Double.toHexString), integers in decimal:
 *   job|user|exe|host|mpi HEX      start|end|ranks|nodes N      wall_s|core_h|mpi_pct|acct_ms X
 *   fn HEX SECONDS CALLS   (a function; the top is picked as the level picks it; sampled: CALLS
 *                          are its samples)          samples N   (a sampled record: N samples)
 *   hwc HARDWARE           (the counters object: 0 or 1)      ev HEX TOTAL MPI   (one counter)
 * Prints "dropped=D" (1: written without the counters), then the line as the level appends it.
 *   acctfmt decimal   reads "X SCALE" lines instead and prints each number as the record writes it.
 */
#include "acctrecord.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *unhex(const char *h)
{
    size_t n = strlen(h) / 2;
    char *s = calloc(n + 1, 1);
    for (size_t i = 0; s && i < n; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        s[i] = (char)v;
    }
    return s;
}

int main(int argc, char **argv)
{
    static char line[1 << 16];
    if (argc > 1 && strcmp(argv[1], "decimal") == 0) {
        while (fgets(line, sizeof line, stdin)) {
            char text[512];
            char *end;
            double v = strtod(line, &end);
            acct_decimal(v, atoi(end), text, sizeof text);
            printf("%s\n", text);
        }
        return 0;
    }
    struct acct_record r;
    memset(&r, 0, sizeof r);
    r.acct_ms = NAN;
    r.samples = -1;
    static const char *names[1024];
    static double seconds[1024];
    static uint64_t calls[1024];
    static struct acct_event events[ACCT_MAX_EVENTS];
    int nfunc = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        char *key = strtok(line, "\t"), *a = strtok(NULL, "\t"), *b = strtok(NULL, "\t"), *c = strtok(NULL, "\t");
        if (!key || !a) {
            continue;
        }
        if (!strcmp(key, "job")) {
            r.job = unhex(a);
        } else if (!strcmp(key, "step")) {
            r.step = unhex(a);
        } else if (!strcmp(key, "user")) {
            r.user = unhex(a);
        } else if (!strcmp(key, "exe")) {
            r.exe = unhex(a);
        } else if (!strcmp(key, "host")) {
            r.host = unhex(a);
        } else if (!strcmp(key, "mpi")) {
            r.mpi = unhex(a);
        } else if (!strcmp(key, "start")) {
            r.has_start = 1;
            r.start = strtoll(a, NULL, 10);
        } else if (!strcmp(key, "end")) {
            r.end = strtoll(a, NULL, 10);
        } else if (!strcmp(key, "ranks")) {
            r.ranks = atoi(a);
        } else if (!strcmp(key, "nodes")) {
            r.nodes = atoi(a);
        } else if (!strcmp(key, "wall_s")) {
            r.wall_s = strtod(a, NULL);
        } else if (!strcmp(key, "core_h")) {
            r.core_h = strtod(a, NULL);
        } else if (!strcmp(key, "mpi_pct")) {
            r.mpi_pct = strtod(a, NULL);
        } else if (!strcmp(key, "acct_ms")) {
            r.acct_ms = strtod(a, NULL);
        } else if (!strcmp(key, "samples")) {
            r.samples = strtoll(a, NULL, 10);
        } else if (!strcmp(key, "fn") && b && c && nfunc < 1024) {
            names[nfunc] = unhex(a);
            seconds[nfunc] = strtod(b, NULL);
            calls[nfunc++] = strtoull(c, NULL, 10);
        } else if (!strcmp(key, "hwc")) {
            r.has_hwc = 1;
            r.hardware = atoi(a);
            r.events = events;
        } else if (!strcmp(key, "ev") && b && c && r.nevents < ACCT_MAX_EVENTS) {
            char *name = unhex(a);
            snprintf(events[r.nevents].name, ACCT_EVENT_NAME, "%s", name);
            free(name);
            events[r.nevents].total = strtoull(b, NULL, 10);
            events[r.nevents++].mpi = strtoull(c, NULL, 10);
        }
    }
    r.ntop = acct_pick_top(nfunc, names, seconds, calls, r.top);
    static char out[1 << 17];
    int dropped;
    size_t n = acct_line(&r, out, sizeof out, &dropped);
    if (n >= sizeof out) {
        fprintf(stderr, "acctfmt: the line does not fit\n");
        return 1;
    }
    printf("dropped=%d\n%s", dropped, out);
    return 0;
}
