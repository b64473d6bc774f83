package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code jpmpi run} reads a program: its ELF interpreter and the libraries it needs (as readelf
 * reads them), headers that do not read as ELF (nothing, never a guess), and its MPI (as ldd's answer
 * says it).
 */
class ApplicationTest {
    private static String run(String... command) throws Exception {
        Process r = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(r.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, r.waitFor(), out);
        return out;
    }

    /** What readelf says: the program's interpreter, then each library it needs. */
    private static List<String> readelf(Path p) throws Exception {
        List<String> found = new ArrayList<>();
        String segments = run("readelf", "-lW", p.toString());
        int at = segments.indexOf("[Requesting program interpreter: ");
        found.add(at < 0 ? "" : segments.substring(segments.indexOf(": ", at) + 2, segments.indexOf(']', at)));
        for (String line : run("readelf", "-dW", p.toString()).split("\n")) {
            if (line.contains("(NEEDED)")) {
                found.add(line.substring(line.indexOf('[') + 1, line.lastIndexOf(']')));
            }
        }
        return found;
    }

    private static List<String> read(Path p) throws Exception {
        ElfFile e = ElfFile.read(p).orElseThrow(() -> new AssertionError(p + " not read"));
        List<String> found = new ArrayList<>();
        found.add(e.interpreter().orElse(""));
        found.addAll(e.needed());
        return found;
    }

    @Test
    void theInterpreterAndTheLibrariesAreTheOnesReadelfReads() throws Exception {
        for (Path p : List.of(Path.of("/bin/sh"), Path.of(Impl.OPENMPI.file("pingpong")), Path.of(Impl.MPICH.file("pingpong")),
                Path.of("/usr/bin/" + Impl.OPENMPI.cc).toRealPath(), Path.of("/usr/lib/x86_64-linux-gnu/libc.so.6"))) {
            List<String> expected = readelf(p);
            assertTrue(expected.size() > 1, () -> p + ": " + expected);
            assertEquals(expected, read(p), p::toString);
        }
    }

    /** A little-endian ELF file of the given class: PT_LOAD of the whole file at 0x400000, PT_INTERP, PT_DYNAMIC. */
    private static byte[] elf(boolean is64, String interp, String... needed) {
        ByteBuffer b = ByteBuffer.allocate(2048).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {0x7f, 'E', 'L', 'F', (byte) (is64 ? 2 : 1), 1, 1});
        int ph = is64 ? 64 : 52;
        int phsize = is64 ? 56 : 32;
        if (is64) {
            b.putLong(32, ph).putShort(54, (short) phsize).putShort(56, (short) 3);
        } else {
            b.putInt(28, ph).putShort(42, (short) phsize).putShort(44, (short) 3);
        }
        int strtab = 1024;
        int dyn = 512;
        byte[] strings = (interp + "\0" + String.join("\0", needed) + "\0").getBytes(StandardCharsets.ISO_8859_1);
        b.put(strtab, strings);
        long[][] phdrs = {{1, 0, 0x400000, 2048}, {3, strtab, 0, interp.length() + 1}, {2, dyn, 0, (needed.length + 3) * (is64 ? 16 : 8)}};
        for (int i = 0; i < 3; i++) {
            int p = ph + i * phsize;
            b.putInt(p, (int) phdrs[i][0]);
            if (is64) {
                b.putLong(p + 8, phdrs[i][1]).putLong(p + 16, phdrs[i][2]).putLong(p + 32, phdrs[i][3]);
            } else {
                b.putInt(p + 4, (int) phdrs[i][1]).putInt(p + 8, (int) phdrs[i][2]).putInt(p + 16, (int) phdrs[i][3]);
            }
        }
        int e = dyn;
        int name = interp.length() + 1;
        long[][] entries = new long[needed.length + 3][];
        for (int i = 0; i < needed.length; i++) {
            entries[i] = new long[] {1, name};
            name += needed[i].length() + 1;
        }
        entries[needed.length] = new long[] {5, 0x400000 + strtab};
        entries[needed.length + 1] = new long[] {10, strings.length};
        entries[needed.length + 2] = new long[] {0, 0};
        for (long[] d : entries) {
            if (is64) {
                b.putLong(e, d[0]).putLong(e + 8, d[1]);
                e += 16;
            } else {
                b.putInt(e, (int) d[0]).putInt(e + 4, (int) d[1]);
                e += 8;
            }
        }
        return b.array();
    }

    private static Optional<ElfFile> readBytes(Path dir, byte[] bytes) throws Exception {
        Path f = Files.write(dir.resolve("f" + System.nanoTime()), bytes);
        return ElfFile.read(f);
    }

    @Test
    void bothClassesReadAndBrokenHeadersGiveNothing(@TempDir Path dir) throws Exception {
        for (boolean is64 : new boolean[] {true, false}) {
            byte[] good = elf(is64, "/lib/ld-linux.so.2", "libmpi.so.40", "libc.so.6");
            assertEquals(Optional.of(new ElfFile(Optional.of("/lib/ld-linux.so.2"), List.of("libmpi.so.40", "libc.so.6"))),
                    readBytes(dir, good));
            assertEquals(Optional.empty(), readBytes(dir, Arrays.copyOf(good, 1030)), "the strings cut off");
            assertEquals(Optional.empty(), readBytes(dir, Arrays.copyOf(good, 100)), "the headers cut off");
            byte[] unterminated = good.clone();
            Arrays.fill(unterminated, 1024, 2048, (byte) 'x');
            assertEquals(Optional.empty(), readBytes(dir, unterminated), "no NUL");
            byte[] badStrtab = good.clone();
            ByteBuffer.wrap(badStrtab).order(ByteOrder.LITTLE_ENDIAN).putInt(512 + (is64 ? 2 * 16 + 8 : 2 * 8 + 4), 0x10);
            assertEquals(Optional.empty(), readBytes(dir, badStrtab), "the string table outside every segment");
            byte[] manyHeaders = good.clone();
            ByteBuffer.wrap(manyHeaders).order(ByteOrder.LITTLE_ENDIAN).putShort(is64 ? 56 : 44, (short) 0xffff);
            assertEquals(Optional.empty(), readBytes(dir, manyHeaders), "65535 program headers");
        }
        byte[] big = elf(true, "/lib64/ld-linux-x86-64.so.2", "libmpich.so.12");
        ByteBuffer.wrap(big).order(ByteOrder.LITTLE_ENDIAN).putLong(64 + 56 + 32, Long.MAX_VALUE);
        assertEquals(Optional.empty(), readBytes(dir, big), "an interpreter of 2^63 bytes");
        ByteBuffer.wrap(big).order(ByteOrder.LITTLE_ENDIAN).putLong(64 + 56 + 32, 28).putLong(64 + 56 + 8, -8);
        assertEquals(Optional.empty(), readBytes(dir, big), "a negative offset");
        assertEquals(Optional.empty(), readBytes(dir, "#!/bin/sh\necho hi\n".getBytes(StandardCharsets.ISO_8859_1)), "not ELF");
        assertEquals(Optional.empty(), readBytes(dir, new byte[0]));
    }

    /**
     * A Fortran program needs the MPI's Fortran library alone (Open MPI's libmpi_mpifh or libmpi_usempif08,
     * MPICH's libmpichfort): its MPI is known from its own headers, as the loader's list says it.
     */
    @Test
    void aFortranProgramsMpiIsItsBindingsOwn() throws Exception {
        for (Impl impl : Impl.values()) {
            for (String name : List.of("pingpong_mpif", "fsites_f08")) {
                Path program = Path.of(impl.file(name));
                Application a = Application.inspectNow(program);
                assertTrue(a.libraries().stream().noneMatch(impl.libmpi::equals), () -> name + " needs the C library itself: "
                        + a.libraries());
                assertEquals(impl == Impl.OPENMPI ? MpiImpl.OPENMPI : MpiImpl.MPICH, a.impl().orElseThrow(), name);
                assertTrue(run("ldd", program.toString()).contains(impl.libmpi), name);
            }
        }
    }

    @Test
    void theMpiIsTheOneLddsAnswerSays() throws Exception {
        for (Impl impl : Impl.values()) {
            Path program = Path.of(impl.file("pingpong"));
            Application a = Application.inspectNow(program);
            assertEquals(Application.Kind.DYNAMIC, a.kind());
            List<String> ldd = run("ldd", program.toString()).lines().map(String::trim)
                    .map(l -> l.contains(" => ") ? l.substring(0, l.indexOf(" => ")) : l.split("\\s+")[0])
                    .filter(l -> !l.isEmpty()).toList();
            assertTrue(ldd.containsAll(a.libraries()), () -> ldd + " " + a.libraries());
            assertTrue(ldd.stream().anyMatch(l -> l.equals(impl.libmpi)), ldd::toString);
            assertEquals(impl == Impl.OPENMPI ? MpiImpl.OPENMPI : MpiImpl.MPICH, a.impl().orElseThrow());
        }
    }
}
