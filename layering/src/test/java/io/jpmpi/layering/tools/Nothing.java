package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;

/** An interceptor that overrides nothing: its level must cost no upcall at all. */
public final class Nothing extends Interceptor {
}
