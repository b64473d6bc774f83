package io.jpmpi.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The site configuration's reader: its keys, its defaults, the opt-out rule, and each refused line. */
class SiteConfigTest {
    static final Path FILE = Path.of("/etc/jpmpi/site.conf");

    @Test
    void readsToolsSettingsAndTheOptOutRule() throws Exception {
        SiteConfig c = SiteConfig.parse(FILE, List.of("# the centre's tools", "", "  tools = accounting , /opt/x/libmine.so",
                "opt-out = forbidden", "set JPMPI_ACCOUNTING_FILE = unix:/run/jpmpi/a.sock", "set JPMPI_HWC_EVENTS=cycles"));
        assertEquals(List.of("accounting", "/opt/x/libmine.so"), c.tools());
        assertFalse(c.optOutAllowed());
        assertEquals(List.of("JPMPI_ACCOUNTING_FILE", "JPMPI_HWC_EVENTS"), List.copyOf(c.sets().keySet()));
        assertEquals("unix:/run/jpmpi/a.sock", c.sets().get("JPMPI_ACCOUNTING_FILE"));
        assertTrue(c.appliesTo(Map.of("JPMPI_SITE_TOOLS", "off")), "forbidden: the opt-out is ignored");
    }

    @Test
    void optingOutWhereAllowed() throws Exception {
        SiteConfig c = SiteConfig.parse(FILE, List.of("tools = accounting"));
        assertTrue(c.optOutAllowed(), "allowed unless the site says otherwise");
        assertTrue(c.appliesTo(Map.of()));
        for (String off : List.of("off", "OFF", "no", "0")) {
            assertFalse(c.appliesTo(Map.of("JPMPI_SITE_TOOLS", off)), off);
        }
        assertTrue(c.appliesTo(Map.of("JPMPI_SITE_TOOLS", "on")));
    }

    @Test
    void badLinesNameFileAndLine() {
        assertEquals("site configuration /etc/jpmpi/site.conf:2: unknown key (keys: tools, opt-out, set NAME)",
                assertThrows(SiteConfig.BadConfig.class, () -> SiteConfig.parse(FILE, List.of("tools = a", "tool = b")))
                        .getMessage());
        assertEquals("site configuration /etc/jpmpi/site.conf:1: not 'key = value' (keys: tools, opt-out, set NAME)",
                assertThrows(SiteConfig.BadConfig.class, () -> SiteConfig.parse(FILE, List.of("accounting"))).getMessage());
        assertEquals("site configuration /etc/jpmpi/site.conf:1: opt-out is 'allowed' or 'forbidden'",
                assertThrows(SiteConfig.BadConfig.class, () -> SiteConfig.parse(FILE, List.of("opt-out = yes"))).getMessage());
        assertEquals("site configuration /etc/jpmpi/site.conf:1: set names a JPMPI_ variable (upper case, digits, _)",
                assertThrows(SiteConfig.BadConfig.class, () -> SiteConfig.parse(FILE, List.of("set LD_PRELOAD = x")))
                        .getMessage());
    }

    @Test
    void theInstallationsFileUnlessAVariableNamesOne(@TempDir Path home) throws Exception {
        assertTrue(SiteConfig.find(home, Map.of()).isEmpty(), "no file: no site tools");
        Path own = home.resolve(InstallLayout.SITE_CONFIG);
        Files.createDirectories(own.getParent());
        Files.writeString(own, "tools = accounting\n");
        assertEquals(List.of("accounting"), SiteConfig.find(home, Map.of()).orElseThrow().tools());
        Path other = Files.writeString(home.resolve("other.conf"), "tools = hwc\n");
        assertEquals(List.of("hwc"), SiteConfig.find(home, Map.of("JPMPI_SITE_CONFIG", other.toString())).orElseThrow().tools());
        assertThrows(SiteConfig.BadConfig.class, () -> SiteConfig.find(home, Map.of("JPMPI_SITE_CONFIG", "/no/such")),
                "a file the site names must be there");
    }
}
