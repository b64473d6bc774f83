/*
 * signals.c - the crash signals of a rank that runs a JVM.
 *
 * The JVM needs SIGSEGV, SIGBUS, SIGFPE and SIGILL for itself: its implicit null checks,
 * safepoint polls and stack banging are faults that its handler turns into ordinary control flow.
 * A fault that is not the JVM's (the application's own segfault, a bug in a C library) must look
 * exactly as it would without jpmpi: the handler the program or its MPI library set runs, or the
 * default action ends the process with the same signal and the same exit status; no JVM banner,
 * no hs_err file.
 *
 * How (see layering/README.md, "Signals"):
 *  - Just before the JVM starts, the handlers in place for those four signals are taken into
 *    the program's view (app[]) and the process's are reset to the default, so the JVM finds no
 *    handler to chain to and installs its own.
 *  - Once it runs, a handler of ours takes the JVM's place (with the JVM's flags and mask). It
 *    asks the JVM first (JVM_handle_linux_signal, told not to abort on a signal it does not
 *    recognise): what the JVM recognises is done. Anything else goes to the program's view: its
 *    handler, called as the kernel would call it, or the default action.
 *  - From then on, sigaction(), signal(), sigset(), ... of these four signals, called by the
 *    program or any library but the JVM's own, read and change the program's view only (what
 *    libjsig.so does, which is therefore not preloaded): a handler set after MPI_Init (Open MPI's
 *    stack-trace handler, gfortran's, the profile recorder's) neither unseats the JVM nor is
 *    unseated by it, and getting a handler returns what the program set.
 * Without a JVM nothing of this is active: every call goes straight to the C library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "jpmpi_core.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*jvm_signal_fn)(int, siginfo_t *, void *, int);

static const int guarded[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
enum { NGUARDED = sizeof guarded / sizeof guarded[0] };

static sigaction_fn libc_sigaction_fn;
static jvm_signal_fn jvm_signal;
static struct sigaction app[NGUARDED]; /* the program's view of each guarded signal */
static volatile int guarding;          /* the JVM runs and our handler is in its place */
static uintptr_t jvm_lo, jvm_hi;       /* where libjvm.so is mapped: its calls go to the C library */
static int view_lock;

static void *libc_symbol(const char *name)
{
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    void *sym = libc ? dlsym(libc, name) : NULL;
    if (libc) {
        dlclose(libc);
    }
    return sym;
}

static int libc_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    sigaction_fn f = __atomic_load_n(&libc_sigaction_fn, __ATOMIC_ACQUIRE);
    if (f == NULL) {
        f = (sigaction_fn)libc_symbol("sigaction");
        __atomic_store_n(&libc_sigaction_fn, f, __ATOMIC_RELEASE);
    }
    return f(sig, act, old);
}

static int slot_of(int sig)
{
    for (int k = 0; k < NGUARDED; k++) {
        if (guarded[k] == sig) {
            return k;
        }
    }
    return -1;
}

/* The slot of sig when the program's view answers for it (a guarded signal, not a call of the JVM). */
static int view_slot(int sig, const void *caller)
{
    if (!__atomic_load_n(&guarding, __ATOMIC_ACQUIRE)) {
        return -1;
    }
    uintptr_t pc = (uintptr_t)caller;
    return pc >= jvm_lo && pc < jvm_hi ? -1 : slot_of(sig);
}

/* Every signal is blocked while the view changes: a handler that sets a handler (Open MPI's does)
 * must not wait on a lock its own thread holds. */
static void view_exchange(int k, const struct sigaction *act, struct sigaction *old)
{
    sigset_t all, mask;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &mask);
    while (__atomic_exchange_n(&view_lock, 1, __ATOMIC_ACQUIRE)) {
    }
    if (old) {
        *old = app[k];
    }
    if (act) {
        app[k] = *act;
    }
    __atomic_store_n(&view_lock, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
}

static void default_action(int sig, const siginfo_t *info)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    libc_sigaction(sig, &dfl, NULL);
    if (info == NULL || info->si_code <= 0) {
        raise(sig); /* sent by kill() or raise(): delivered again, now to the default action */
    }
    /* else a fault: returning runs the faulting instruction again */
}

static void on_fault(int sig, siginfo_t *info, void *context)
{
    if (jvm_signal(sig, info, context, 0)) {
        return; /* the JVM's own */
    }
    int k = slot_of(sig);
    struct sigaction a;
    view_exchange(k, NULL, &a);
    int has_handler = (a.sa_flags & SA_SIGINFO) ? a.sa_sigaction != NULL
                                                : a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
    if (!has_handler) {
        if (a.sa_handler == SIG_IGN && info && info->si_code <= 0) {
            return; /* an ignored signal sent by kill() */
        }
        default_action(sig, info); /* a fault cannot be ignored: the kernel would end the process */
        return;
    }
    if (a.sa_flags & SA_RESETHAND) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        view_exchange(k, &dfl, NULL);
    }
    sigset_t during = a.sa_mask, before;
    if (!(a.sa_flags & SA_NODEFER)) {
        sigaddset(&during, sig);
    }
    pthread_sigmask(SIG_BLOCK, &during, &before);
    if (a.sa_flags & SA_SIGINFO) {
        a.sa_sigaction(sig, info, context);
    } else {
        a.sa_handler(sig);
    }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

static int find_jvm(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if ((void *)info->dlpi_addr != data) {
        return 0;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
            jvm_lo = jvm_lo == 0 || lo < jvm_lo ? lo : jvm_lo;
            jvm_hi = hi > jvm_hi ? hi : jvm_hi;
        }
    }
    return 1;
}

int jpmpi_signals_before_jvm(void *libjvm)
{
    if (dlsym(RTLD_DEFAULT, "JVM_begin_signal_setting")) {
        return -1; /* libjsig.so was preloaded after all: it chains, as it always did */
    }
    jvm_signal = (jvm_signal_fn)dlsym(libjvm, "JVM_handle_linux_signal");
    Dl_info where;
    if (jvm_signal == NULL || !dladdr((void *)jvm_signal, &where)) {
        return -1; /* not HotSpot: the JVM chains to the handlers it finds, as it always did */
    }
    dl_iterate_phdr(find_jvm, where.dli_fbase);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int k = 0; k < NGUARDED; k++) {
        libc_sigaction(guarded[k], &dfl, &app[k]);
    }
    return 0;
}

void jpmpi_signals_after_jvm(void)
{
    for (int k = 0; k < NGUARDED; k++) {
        struct sigaction ours;
        libc_sigaction(guarded[k], NULL, &ours); /* the JVM's flags and mask */
        ours.sa_flags |= SA_SIGINFO;
        ours.sa_sigaction = on_fault;
        libc_sigaction(guarded[k], &ours, NULL);
    }
    __atomic_store_n(&guarding, 1, __ATOMIC_RELEASE);
}

void jpmpi_signals_abandon(void)
{
    /* No JVM after all: the program's handlers go back in place. */
    for (int k = 0; k < NGUARDED; k++) {
        libc_sigaction(guarded[k], &app[k], NULL);
    }
}

/* ---- the program's calls ---- */

JPMPI_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    int k = view_slot(sig, __builtin_return_address(0));
    if (k < 0) {
        return libc_sigaction(sig, act, old);
    }
    view_exchange(k, act, old);
    return 0;
}

/* signal()'s kinds as glibc makes them: BSD (signal, bsd_signal) and System V (sysv_signal). */
static sighandler_t set_handler(int sig, sighandler_t handler, int flags, const void *caller)
{
    if (handler == SIG_ERR) {
        errno = EINVAL;
        return SIG_ERR;
    }
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = flags;
    sigemptyset(&act.sa_mask);
    if (!(flags & SA_NODEFER)) {
        sigaddset(&act.sa_mask, sig);
    }
    int k = view_slot(sig, caller);
    if (k < 0) {
        return libc_sigaction(sig, &act, &old) == 0 ? old.sa_handler : SIG_ERR;
    }
    view_exchange(k, &act, &old);
    return old.sa_handler;
}

JPMPI_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
    return set_handler(sig, handler, SA_RESTART, __builtin_return_address(0));
}

JPMPI_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
    return set_handler(sig, handler, SA_RESTART, __builtin_return_address(0));
}

JPMPI_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
    return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, __builtin_return_address(0));
}

JPMPI_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
    return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, __builtin_return_address(0));
}
