package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.profilers.profile.SiteTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Call sites named at merge time with binutils' addr2line (a prerequisite, like the C compiler the
 * build already needs): a program built here with -g, without -g, and stripped, each naming the
 * same address as well as it can; no addr2line at all; and addr2line's answers parsed.
 */
class SiteNamesTest {
    private static final String SOURCE = """
            int probe_value;

            __attribute__((noinline)) int probe_fn(int x) /* PROBE-FN */
            {
                probe_value += x;
                return probe_value * 3;
            }

            int main(int argc, char **argv)
            {
                (void)argv;
                return probe_fn(argc) == 7;
            }
            """;

    private static void run(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail(String.join(" ", cmd) + ": " + out);
        }
    }

    /** probe_fn's offset in {@code exe}, from its symbol table (nm), before stripping. */
    private static long offsetOf(Path dir, Path exe) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("nm", exe.toString()).directory(dir.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        for (String l : out.lines().toList()) {
            if (l.endsWith(" probe_fn")) {
                return Long.parseLong(l.substring(0, l.indexOf(' ')), 16);
            }
        }
        return fail("no probe_fn in nm " + exe + ":\n" + out);
    }

    /** A site whose return address is one byte into probe_fn: addr2line is asked about its first byte. */
    private static SiteTables.Raw raw(Path module, long offset, String symbol) {
        Stat one = Stat.of(new double[] {1, 1});
        return new SiteTables.Raw("MPI_Send", module.toString(), offset + 1, symbol, one, one, one);
    }

    @Test
    void debugInformationThenSymbolsThenTheDynamicSymbolThenModuleAndOffset(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("probe.c"), SOURCE);
        run(dir, "cc", "-g", "-O1", "-o", "probe", "probe.c");
        run(dir, "cc", "-O1", "-o", "probe-nodebug", "probe.c");
        run(dir, "cp", "probe-nodebug", "probe-stripped");
        run(dir, "strip", "probe-stripped");
        long debug = offsetOf(dir, dir.resolve("probe"));
        long nodebug = offsetOf(dir, dir.resolve("probe-nodebug"));
        int line = SOURCE.lines().toList().indexOf(SOURCE.lines().filter(l -> l.contains("PROBE-FN")).findFirst()
                .orElseThrow()) + 1;
        SiteTables.Merged merged = new SiteTables.Merged(List.of(raw(dir.resolve("probe"), debug, null),
                raw(dir.resolve("probe-nodebug"), nodebug, null), raw(dir.resolve("probe-stripped"), nodebug, null),
                raw(dir.resolve("probe-stripped"), nodebug + 8, "probe_fn+0x9"),
                raw(dir.resolve("gone"), 16, "gone_fn+0x10"),
                raw(Path.of("?"), 0, null)), null);
        CallSites cs = SiteNames.name(merged);
        List<CallSites.Site> s = cs.sites();
        assertEquals(CallSites.Resolved.LINE, s.get(0).resolved(), s.get(0).toString());
        assertEquals("probe_fn", s.get(0).name());
        assertTrue(s.get(0).file().endsWith("probe.c"), s.get(0).file());
        assertTrue(s.get(0).line() >= line && s.get(0).line() <= line + 2, s.get(0) + " vs line " + line);
        assertEquals(CallSites.Resolved.FUNCTION, s.get(1).resolved());
        assertEquals("probe_fn", s.get(1).name());
        assertEquals("probe_fn (probe-nodebug+0x" + Long.toHexString(nodebug + 1) + ")", s.get(1).where());
        assertEquals(CallSites.Resolved.MODULE, s.get(2).resolved());
        assertEquals("probe-stripped+0x" + Long.toHexString(nodebug + 1), s.get(2).where());
        assertEquals(CallSites.Resolved.SYMBOL, s.get(3).resolved());
        assertEquals("probe_fn+0x9 (probe-stripped)", s.get(3).where());
        assertEquals(CallSites.Resolved.SYMBOL, s.get(4).resolved());
        assertEquals(CallSites.Resolved.MODULE, s.get(5).resolved());
        assertTrue(cs.note().contains(dir.resolve("gone") + " is no longer there"), cs.note());
        assertTrue(cs.note().contains("no debug information for some sites in probe-nodebug, probe-stripped"
                + " (addr2line answered ??)"), cs.note());
        assertEquals(s.size(), merged.sites().size());
    }

    /** More modules than are asked at once: every one answered; many modules gone: three named, the rest counted. */
    @Test
    void manyModules(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("probe.c"), SOURCE);
        run(dir, "cc", "-g", "-O1", "-o", "probe", "probe.c");
        long offset = offsetOf(dir, dir.resolve("probe"));
        List<SiteTables.Raw> raws = new java.util.ArrayList<>();
        for (int i = 0; i < 2 * SiteNames.PARALLEL + 1; i++) {
            Path copy = Files.copy(dir.resolve("probe"), dir.resolve("probe-" + i));
            raws.add(raw(copy, offset, null));
        }
        for (int i = 0; i < 5; i++) {
            raws.add(raw(dir.resolve("gone-" + i), 16, null));
        }
        CallSites cs = SiteNames.name(new SiteTables.Merged(raws, null));
        for (int i = 0; i < 2 * SiteNames.PARALLEL + 1; i++) {
            assertEquals(CallSites.Resolved.LINE, cs.sites().get(i).resolved(), cs.sites().get(i).toString());
            assertEquals("probe_fn", cs.sites().get(i).name());
        }
        assertEquals(dir.resolve("gone-0") + " is no longer there; " + dir.resolve("gone-1") + " is no longer there; "
                + dir.resolve("gone-2") + " is no longer there; and 2 more modules: those sites are named by dynamic"
                + " symbol or module+offset", cs.note());
    }

    /**
     * More sites in one module than one process is given: several processes, each answer (more than a
     * pipe holds) read as it comes, and every site gets its own function and line.
     */
    @Test
    void moreSitesInOneModuleThanOneProcessTakes(@TempDir Path dir) throws Exception {
        int n = 2 * SiteNames.PER_PROCESS + 3;
        StringBuilder c = new StringBuilder("int sink;\n");
        for (int i = 0; i < n; i++) {
            c.append("__attribute__((noinline)) void many_").append(i).append("(void) { sink += ").append(i)
                    .append("; }\n");
        }
        c.append("int main(void) { many_0(); return sink; }\n");
        Files.writeString(dir.resolve("many.c"), c);
        run(dir, "cc", "-g", "-O1", "-o", "many", "many.c");
        Process p = new ProcessBuilder("nm", "many").directory(dir.toFile()).start();
        Map<String, Long> offsets = new java.util.HashMap<>();
        for (String l : new String(p.getInputStream().readAllBytes()).lines().toList()) {
            String[] f = l.split(" ");
            if (f.length == 3 && f[2].startsWith("many_")) {
                offsets.put(f[2], Long.parseLong(f[0], 16));
            }
        }
        p.waitFor();
        assertEquals(n, offsets.size());
        List<SiteTables.Raw> raws = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            raws.add(raw(dir.resolve("many"), offsets.get("many_" + i), null));
        }
        CallSites cs = SiteNames.name(new SiteTables.Merged(raws, null));
        assertNull(cs.note());
        for (int i = 0; i < n; i++) {
            CallSites.Site site = cs.sites().get(i);
            assertEquals(CallSites.Resolved.LINE, site.resolved(), site.toString());
            assertEquals("many_" + i, site.name());
            assertEquals(i + 2, site.line(), site.toString());
        }
    }

    @Test
    void withoutAddr2lineTheRanksNamesAreKeptAndThatIsSaidOnce(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a"), "not a program");
        Files.writeString(dir.resolve("b"), "not a program either");
        SiteTables.Merged merged = new SiteTables.Merged(List.of(raw(dir.resolve("a"), 16, "f+0x1"),
                raw(dir.resolve("b"), 32, null)), "1 of 2 ranks left no sites/rank-R.tsv (their sites count 0)");
        CallSites cs = SiteNames.name(merged, dir.resolve("no-addr2line").toString());
        assertEquals(List.of(CallSites.Resolved.SYMBOL, CallSites.Resolved.MODULE),
                cs.sites().stream().map(CallSites.Site::resolved).toList());
        assertTrue(cs.note().startsWith(dir.resolve("no-addr2line") + " could not be run ("), cs.note());
        assertEquals(1, cs.note().split("could not be run", -1).length - 1, "said once: " + cs.note());
        assertTrue(cs.note().endsWith("; 1 of 2 ranks left no sites/rank-R.tsv (their sites count 0)"), cs.note());
    }

    @Test
    void answersAreReadTwoLinesAnOffset() {
        Map<Long, SiteNames.Answer> a = SiteNames.parse(List.of("main", "/src/a.c:42 (discriminator 3)",
                "helper(int) const", "/src/b.cpp:?", "??", "??:0", "f", "??:0"), List.of(1L, 2L, 3L, 4L));
        assertEquals(new SiteNames.Answer("main", "/src/a.c", 42), a.get(1L));
        assertEquals(new SiteNames.Answer("helper(int) const", "/src/b.cpp", 0), a.get(2L));
        assertEquals(SiteNames.Answer.NONE, a.get(3L));
        assertEquals(new SiteNames.Answer("f", null, 0), a.get(4L));
        assertNull(SiteNames.parse(List.of("main"), List.of(1L)));
    }
}
