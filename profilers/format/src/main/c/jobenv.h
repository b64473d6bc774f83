/*
 * jobenv.h - what the profile recorder and the accounting level both take from the environment:
 * the job id (the same in a profile's output directory and job field as in the accounting record)
 * and the first of a list of variables that is set to more than blanks.
 */
#ifndef JPMPI_JOBENV_H
#define JPMPI_JOBENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Batch systems first (Slurm, PBS, LSF, Grid Engine), then the MPI launchers' own job ids. */
static const char *const jp_job_variables[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID",
                                               "OMPI_MCA_orte_ess_jobid", "OMPI_MCA_ess_base_jobid",
                                               "PMIX_NAMESPACE", "PMI_KVSNAME", NULL};

/* The first of `names` (NULL-terminated) set to something other than blanks, trimmed into buf;
 * NULL (buf untouched) if none. */
static inline const char *jp_first_env(const char *const *names, char *buf, size_t cap)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (!v) {
            continue;
        }
        while (*v && (unsigned char)*v <= ' ') {
            v++;
        }
        size_t n = strlen(v);
        while (n > 0 && (unsigned char)v[n - 1] <= ' ') {
            n--;
        }
        if (n > 0) {
            snprintf(buf, cap, "%.*s", (int)n, v);
            return buf;
        }
    }
    return NULL;
}

#endif
