package io.jpmpi.specs;

import com.fasterxml.jackson.annotation.JsonValue;

/** The family an MPI function belongs to; profilers and the launcher filter by it. */
public enum Category {
    P2P_BLOCKING("p2p-blocking", "point-to-point, blocking"),
    P2P_NONBLOCKING("p2p-nonblocking", "point-to-point, non-blocking"),
    P2P_PERSISTENT("p2p-persistent", "point-to-point, persistent and partitioned"),
    COLL_BLOCKING("coll-blocking", "collective, blocking (including neighbourhood collectives)"),
    COLL_NONBLOCKING("coll-nonblocking", "collective, non-blocking"),
    COLL_PERSISTENT("coll-persistent", "collective, persistent"),
    ONE_SIDED("one-sided", "one-sided communication (RMA) and windows"),
    IO("io", "MPI-IO files"),
    COMMUNICATOR("communicator", "communicators, inter-communicators, process creation"),
    GROUP("group", "process groups"),
    DATATYPE("datatype", "derived datatypes, packing, status element counts"),
    REQUEST_COMPLETION("request-completion", "starting, completing, cancelling and freeing requests"),
    INFO("info", "info objects"),
    ERROR("error", "error handlers, classes and strings"),
    ATTRIBUTE("attribute", "attribute caching and keyvals"),
    TOPOLOGY("topology", "process topologies (cartesian, graph, distributed graph)"),
    TOOLS("tools", "the MPI_T tools interface"),
    INIT_FINALIZE("init-finalize", "initialisation, finalisation, thread level, abort"),
    SESSION("session", "MPI sessions"),
    OTHER("other", "everything else: timers, Pcontrol, memory, handle conversion, names, ports");

    private final String id;
    private final String description;

    Category(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** The name used in the JSON file and on command lines. */
    @JsonValue
    public String id() {
        return id;
    }

    public String description() {
        return description;
    }

    public static Category fromId(String id) {
        for (Category c : values()) {
            if (c.id.equals(id)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown category '" + id + "'");
    }
}
