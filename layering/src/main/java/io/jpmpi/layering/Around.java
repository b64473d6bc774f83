package io.jpmpi.layering;

import io.jpmpi.layering.generated.AroundMethods;

/**
 * An interceptor that sees every MPI function: {@link #enter} runs before the call goes on to the
 * next level and {@link #exit} after it returned, with the function's id (a constant of
 * {@code io.jpmpi.layering.generated.MpiFunctions}; {@code MpiFunctions.name(id)} is its C name).
 * For tools that measure around calls without caring about their arguments: timers, counters
 * read before and after, state sampled per call.
 *
 * <p>Every function gets an upcall unless {@link #intercepts} declines it, so a tool that only
 * sometimes needs every call (a sampling mode, an option) decides there, once, at start-up.
 * {@code MPI_Pcontrol} arrives through {@link #pcontrol}, not here. Override a function as well to
 * see its arguments; call {@code enter}/{@code exit} yourself in it if you still want them.
 */
public abstract class Around extends AroundMethods {
    protected Around() {
    }
}
