package io.jpmpi.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The configuration table: names derived mechanically, unique, one Markdown row each. */
class SettingsTest {
    @Test
    void namesAreDerivedFromAreaAndKey() {
        Set<String> seen = new HashSet<>();
        for (Settings.Setting s : Settings.all()) {
            assertEquals("JPMPI_" + s.area() + "_" + s.key(), s.env());
            assertTrue(seen.add(s.env()), s::env);
        }
        assertEquals("JPMPI_TOOLS_ENTRY", Settings.TOOLS_ENTRY.env());
        assertEquals("JPMPI_OPENMPI_MPIRUN", Settings.mpirun(io.jpmpi.platform.Toolchain.byId("openmpi")).env());
    }

    @Test
    void badNamesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Settings.Setting("tools", "ENTRY",
                Settings.Reader.DISPATCHER, "", "", null));
        for (String[] bad : new String[][] {{"", "KEY"}, {"AREA", ""}, {"1AREA", "KEY"}, {"AREA", "_KEY"},
            {"AR_EA", "KEY"}, {"AREA", "KEY-1"}, {"ÄREA", "KEY"}, {"AREA", "KEy"}}) {
            assertThrows(IllegalArgumentException.class, () -> new Settings.Setting(bad[0], bad[1],
                    Settings.Reader.DISPATCHER, "", "", null), () -> bad[0] + " " + bad[1]);
        }
        assertEquals("JPMPI_A1_B_2", new Settings.Setting("A1", "B_2", Settings.Reader.DISPATCHER, "", "", null).env());
        assertThrows(IllegalArgumentException.class, () -> Settings.get("NO", "SUCH"));
    }

    @Test
    void valuesFallBackToTheAlias() {
        assertEquals("a.so", Settings.TOOLS_ENTRY.value(Map.of("OMPI_MCA_ompi_tools_entry", "a.so")).orElseThrow());
        assertEquals("b.so", Settings.TOOLS_ENTRY.value(Map.of("OMPI_MCA_ompi_tools_entry", "a.so",
                "JPMPI_TOOLS_ENTRY", "b.so")).orElseThrow());
        assertTrue(Settings.OUTPUT_DIR.value(Map.of("JPMPI_OUTPUT_DIR", "")).isEmpty());
    }

    @Test
    void markdownHasARowPerSetting() {
        String md = Settings.markdown();
        assertEquals(Settings.all().size() + 2, md.lines().count());
        for (Settings.Setting s : Settings.all()) {
            assertTrue(md.contains("| `" + s.env() + "`"), s::env);
        }
    }
}
