package io.jpmpi.profilers.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The call sites' names written at MPI_Finalize (rec_sym.c: every module's dynamic symbols read once
 * for all of its sites) are dladdr's, address by address: src/test/c/sym_check.c resolves over a
 * hundred thousand addresses both ways in its own process (this program, the C library, the loader,
 * the vDSO, and the C++ standard library and Open MPI's library where installed: many symbols,
 * aliases at one address, symbols of no size, the gaps between segments) and prints the mismatches.
 * Beside them a test library with only the old ELF hash table (src/test/c/sysv_syms.c, built with
 * -Wl,--hash-style=sysv next to sym_check), whose symbols dladdr and rec_sym.c read another way: the
 * whole table, the global and weak symbols only.
 */
class SiteSymbolsTest {
    @Test
    void everyAddressIsNamedAsDladdrNamesIt() throws Exception {
        Path program = Path.of(System.getProperty("jpmpi.sym.check"));
        assertTrue(Files.isExecutable(program), () -> program + " is missing (this module's test build makes it)");
        Path sysv = program.resolveSibling("libsysv-syms.so");
        assertTrue(Files.isRegularFile(sysv), () -> sysv + " is missing (this module's test build makes it)");
        List<String> command = new ArrayList<>(List.of(program.toString(), sysv.toString()));
        for (String lib : List.of("libstdc++.so.6", "libmpi.so.40")) {
            for (String dir : List.of("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64")) {
                Path p = Path.of(dir, lib);
                if (Files.isRegularFile(p)) {
                    command.add(p.toString());
                    break;
                }
            }
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        Matcher m = Pattern.compile("compared (\\d+) addresses in (\\d+) modules \\((\\d+) without a GNU hash table; 14 of the"
                + " sysv library's symbols\\): (\\d+) in a module, (\\d+) of them in a symbol; 0 mismatches").matcher(out);
        assertTrue(m.find(), out);
        assertTrue(Long.parseLong(m.group(1)) > 50_000 && Long.parseLong(m.group(5)) > 5_000
                && Integer.parseInt(m.group(2)) >= 4, () -> "too few addresses compared: " + out);
        assertTrue(Integer.parseInt(m.group(3)) >= 1, () -> "no module without a GNU hash table: " + out);
    }
}
