/*
 * mpisample.h - which MPI function a thread is in, by sampling its stack: no per-call cost.
 *
 * A sampler thread wakes every 1/hz seconds of wall time (absolute CLOCK_MONOTONIC deadlines)
 * and, when the sampled thread (the one that called MPI_Init) is running or waiting for a core,
 * sends it SIGPROF; a thread asleep in a system call is not interrupted (no sleep or poll of the
 * program returns early) and the sample counts for the application. The handler walks the
 * thread's stack (libgcc's unwinder, from the signal frame outwards) and, at every return
 * address, decodes the call instruction before it (x86-64: call rel32, call *disp(%rip), through a
 * PLT slot) to the function it called. A call whose target is one of the MPI library's entry
 * points, the dispatcher's MPI_X and PMPI_X or a level's, is a call into MPI; the outermost one on
 * the stack is the application's MPI call, which the sample counts for. A sample with none counts
 * for the application. Nothing is added to any MPI call: the calls go through the dispatcher as
 * without the sampler.
 *
 * What a sample costs is the stack walk (microseconds) and the sampler's wake-up, hz times per
 * second. Only the one thread is sampled, in wall time, as the recorder times calls. The handler
 * never allocates or locks: the unwinder finds code through glibc's _dl_find_object (lock-free),
 * and every address it decodes is first looked up among the readable segments of the objects
 * loaded at the start. (A timer on the thread's CPU time was tried first: the kernel checks those
 * at its tick, and where ranks share cores the scheduler switches them at the tick too, so whole
 * phases of a program fell between samples: MPICH, 3 ranks on 2 cores, 96 % MPI sampled, 75 %
 * measured.)
 */
#ifndef JPMPI_MPISAMPLE_H
#define JPMPI_MPISAMPLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Samples per second when none is configured, and the most allowed. Each sample costs the sampled
 * rank its core for a while (the sampler thread's wake-up on that core most, then the signal and
 * the walk): 35 to 55 us on a 2-vCPU KVM guest, so 0.5 % of a computing rank at 100 a second and
 * 0.1 to 0.2 % at 20 (benchmarks/accounting/sampling.sh; ACCOUNTING.md, "Overhead").
 */
#define MPS_DEFAULT_HZ 20
#define MPS_MAX_HZ 10000

/*
 * The classifier alone, for a tool with its own sampler (the hwc tool's sampled mode): makes the
 * tables (every MPI entry point, the readable segments of the objects loaded now) and binds the
 * unwinder with a first walk. Returns 0, or -1 with why (no dispatcher, not x86-64).
 */
int mps_prepare(char *why, size_t whylen);

/*
 * The outermost MPI call on the calling thread's stack (the dispatcher's function index), or -1
 * outside MPI. Safe in a signal handler after mps_prepare: no lock, no allocation.
 */
int mps_classify(void);

/*
 * Starts sampling the calling thread at `hz` samples per second, after MPI_Init (the entry points
 * are the dispatcher's, through its jpmpi_ exports). Returns 0, or -1 with why it cannot (one
 * sentence, into why): no dispatcher, SIGPROF taken by the program or another tool, no thread.
 */
int mps_start(int hz, char *why, size_t whylen);

/* Stops the sampler thread (pending samples are dropped) and gives SIGPROF back as it was. */
void mps_stop(void);

/*
 * The counts after mps_stop: samples in all (the thread asleep included), in MPI (any function),
 * and per function. Samples sent while one was still pending (the thread had no core) count where
 * the thread was when it got the signal, which is where it was all that time.
 */
uint64_t mps_samples(void);
uint64_t mps_in_mpi(void);
uint64_t mps_function_samples(int f); /* f: the dispatcher's function index */

/* The nanoseconds a sample stands for (1e9 / hz). */
uint64_t mps_period_ns(void);

#endif
