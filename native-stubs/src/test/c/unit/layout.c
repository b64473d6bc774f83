/*
 * layout.c - prints the layouts the Java runtime reads from the core (struct jpmpi_bridge, the ABI
 * tables, the bridge's op codes), one "name value" line each, as the compiler lays them out.
 * layering's BridgeLayoutTest compares them with the Java side's constants, so a change on one
 * side only fails the build.
 */
#include <stddef.h>
#include <stdio.h>
#include "jpmpi_core.h"

#define FIELD(s, f) printf("%s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define SIZE(s) printf("%s.sizeof %zu\n", #s, sizeof(struct s))

int main(void)
{
    printf("bridge.version %d\n", JPMPI_BRIDGE_VERSION);
    FIELD(jpmpi_bridge, version);
    FIELD(jpmpi_bridge, nslots);
    FIELD(jpmpi_bridge, slot_names);
    FIELD(jpmpi_bridge, impl_id);
    FIELD(jpmpi_bridge, impl_version);
    FIELD(jpmpi_bridge, call);
    FIELD(jpmpi_bridge, types);
    FIELD(jpmpi_bridge, ntypes);
    FIELD(jpmpi_bridge, constants);
    FIELD(jpmpi_bridge, nconstants);
    FIELD(jpmpi_bridge, status);
    SIZE(jpmpi_bridge);
    FIELD(jpmpi_abi_type, name);
    FIELD(jpmpi_abi_type, size);
    FIELD(jpmpi_abi_type, pointer);
    SIZE(jpmpi_abi_type);
    FIELD(jpmpi_abi_constant, name);
    FIELD(jpmpi_abi_constant, value);
    FIELD(jpmpi_abi_constant, present);
    SIZE(jpmpi_abi_constant);
    FIELD(jpmpi_abi_status, size);
    FIELD(jpmpi_abi_status, source);
    FIELD(jpmpi_abi_status, tag);
    FIELD(jpmpi_abi_status, error);
    printf("op.install %d\n", JPMPI_OP_INSTALL);
    printf("op.relink %d\n", JPMPI_OP_RELINK);
    printf("op.message %d\n", JPMPI_OP_MESSAGE);
    printf("op.route_all %d\n", JPMPI_OP_ROUTE_ALL);
    return 0;
}
