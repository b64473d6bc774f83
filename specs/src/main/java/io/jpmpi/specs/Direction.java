package io.jpmpi.specs;

import com.fasterxml.jackson.annotation.JsonValue;

/** The MPI Forum's parameter direction, as seen by the caller. */
public enum Direction {
    IN("in"), OUT("out"), INOUT("inout");

    private final String id;

    Direction(String id) {
        this.id = id;
    }

    @JsonValue
    public String id() {
        return id;
    }

    public static Direction fromId(String id) {
        for (Direction d : values()) {
            if (d.id.equals(id)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown parameter direction '" + id + "'");
    }
}
