package io.jpmpi.layering.runtime;

import io.jpmpi.layering.generated.MpiFunctions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The Java levels of this process and the dispatcher slot of each function id. */
final class LevelTable {
    private static final Map<String, Integer> IDS;

    static {
        Map<String, Integer> ids = new HashMap<>();
        for (int id = 0; id < MpiFunctions.COUNT; id++) {
            ids.put(MpiFunctions.name(id), id);
        }
        IDS = Collections.unmodifiableMap(ids);
    }

    final Bridge bridge;
    private final int[] slots = new int[MpiFunctions.COUNT];
    final List<JavaLevel> levels = new ArrayList<>();

    LevelTable(Bridge bridge) {
        this.bridge = bridge;
        java.util.Arrays.fill(slots, -1);
        for (int slot = 0; slot < bridge.nslots; slot++) {
            Integer id = IDS.get(bridge.slotName(slot));
            if (id != null) {
                slots[id] = slot;
            }
        }
    }

    static Map<String, Integer> ids() {
        return IDS;
    }

    /** The dispatcher's slot of function id, or -1 if this MPI lacks it. */
    int slotOf(int id) {
        return slots[id];
    }

    /** Re-points the dispatcher's tables, then every Java level's call positions. */
    synchronized void relink() {
        bridge.relink();
        for (JavaLevel l : levels) {
            l.refresh();
        }
    }
}
