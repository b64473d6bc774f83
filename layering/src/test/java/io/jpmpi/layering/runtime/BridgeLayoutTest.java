package io.jpmpi.layering.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The layouts the Java runtime reads from the dispatcher's core (struct jpmpi_bridge, the ABI
 * tables, the op codes), compared field by field with what the C compiler makes of jpmpi_core.h
 * (native-stubs/src/test/c/unit/layout.c prints offsetof and sizeof): a change on one side only
 * fails here, not in a rank.
 */
class BridgeLayoutTest {
    private static Map<String, Long> compiled() throws IOException, InterruptedException {
        Path program = Path.of(System.getProperty("jpmpi.layout.program"));
        assertTrue(Files.isExecutable(program), () -> program + " is missing (native-stubs' test build makes it)");
        Process p = new ProcessBuilder(program.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        Map<String, Long> c = new TreeMap<>();
        out.lines().map(l -> l.split(" ")).forEach(w -> c.put(w[0], Long.parseLong(w[1])));
        return c;
    }

    @Test
    void javaReadsTheCoreAtTheOffsetsTheCompilerChose() throws Exception {
        Map<String, Long> java = new LinkedHashMap<>();
        java.put("bridge.version", Bridge.VERSION);
        String[] fields = {"version", "nslots", "slot_names", "impl_id", "impl_version", "call", "types", "ntypes",
            "constants", "nconstants", "status"};
        long[] offsets = {0, Bridge.SLOTS, Bridge.SLOT_NAMES, Bridge.IMPL_ID, Bridge.IMPL_VERSION, Bridge.CALL,
            Bridge.TYPES, Bridge.NTYPES, Bridge.CONSTANTS, Bridge.NCONSTANTS, Bridge.STATUS};
        for (int i = 0; i < fields.length; i++) {
            java.put("jpmpi_bridge." + fields[i], offsets[i]);
        }
        java.put("jpmpi_bridge.sizeof", Bridge.SIZE);
        for (String entry : new String[] {"jpmpi_abi_type", "jpmpi_abi_constant"}) {
            java.put(entry + ".name", Bridge.ENTRY_NAME);
            java.put(entry + "." + (entry.endsWith("type") ? "size" : "value"), Bridge.ENTRY_VALUE);
            java.put(entry + "." + (entry.endsWith("type") ? "pointer" : "present"), Bridge.ENTRY_FLAG);
        }
        java.put("jpmpi_abi_type.sizeof", Bridge.ENTRY_SIZE);
        java.put("jpmpi_abi_constant.sizeof", Bridge.ENTRY_SIZE);
        java.put("jpmpi_abi_status.size", Bridge.STATUS_SIZE);
        java.put("jpmpi_abi_status.source", Bridge.STATUS_SOURCE);
        java.put("jpmpi_abi_status.tag", Bridge.STATUS_TAG);
        java.put("jpmpi_abi_status.error", Bridge.STATUS_ERROR);
        java.put("op.install", Bridge.INSTALL);
        java.put("op.relink", Bridge.RELINK);
        java.put("op.message", Bridge.MESSAGE);
        java.put("op.route_all", Bridge.ROUTE_ALL);
        Map<String, Long> c = compiled();
        for (var e : java.entrySet()) {
            assertEquals(c.get(e.getKey()), e.getValue(), () -> e.getKey() + ": C says " + c.get(e.getKey())
                    + ", the Java runtime reads " + e.getValue());
        }
        assertEquals(java.keySet(), c.keySet(), "every layout C prints is checked on the Java side");
    }
}
