package io.jpmpi.specs;

import com.fasterxml.jackson.annotation.JsonValue;

/** Where a parameter's kind and direction came from. */
public enum KindSource {
    /** The MPI Forum's apis.json (MPI 4.0). */
    FORUM("forum"),
    /** specs/overrides.jsonc, for functions the Forum does not describe (removed MPI-1 names, MPIX). */
    OVERRIDE("override"),
    /** Nobody knows: the kind is absent. */
    NONE("none");

    private final String id;

    KindSource(String id) {
        this.id = id;
    }

    @JsonValue
    public String id() {
        return id;
    }
}
