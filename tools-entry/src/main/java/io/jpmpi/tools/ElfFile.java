package io.jpmpi.tools;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code jpmpi run} reads of an ELF program itself, from its headers (the ELF format as the System
 * V ABI defines it; 32 and 64 bits, either byte order): the program interpreter it names (PT_INTERP:
 * its dynamic loader) and the libraries it needs directly (the DT_NEEDED entries of its PT_DYNAMIC
 * segment). Anything that does not read as the format says gives nothing rather than a guess: the
 * caller then asks the dynamic loader.
 */
record ElfFile(Optional<String> interpreter, List<String> needed) {
    private static final int PT_LOAD = 1;
    private static final int PT_DYNAMIC = 2;
    private static final int PT_INTERP = 3;
    private static final long DT_NULL = 0;
    private static final long DT_NEEDED = 1;
    private static final long DT_STRTAB = 5;
    private static final long DT_STRSZ = 10;
    /** Bounds on what is read: program headers, dynamic entries, a name. */
    private static final int MAX_PHDRS = 512;
    private static final int MAX_DYNAMIC = 1 << 16;
    private static final int MAX_NAME = 4096;

    /** {@code path} read as an ELF file; empty when it is not one, or its headers do not read as one. */
    static Optional<ElfFile> read(Path path) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            return read(ch);
        }
    }

    static Optional<ElfFile> read(FileChannel ch) throws IOException {
        ByteBuffer h = bytes(ch, 0, 64);
        if (h == null || h.get(0) != 0x7f || h.get(1) != 'E' || h.get(2) != 'L' || h.get(3) != 'F'
                || h.get(4) != 1 && h.get(4) != 2 || h.get(5) != 1 && h.get(5) != 2) {
            return Optional.empty();
        }
        boolean is64 = h.get(4) == 2;
        ByteOrder order = h.get(5) == 2 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        h.order(order);
        long phoff = is64 ? h.getLong(32) : Integer.toUnsignedLong(h.getInt(28));
        int phentsize = Short.toUnsignedInt(h.getShort(is64 ? 54 : 42));
        int phnum = Short.toUnsignedInt(h.getShort(is64 ? 56 : 44));
        if (phnum > MAX_PHDRS || phentsize < (is64 ? 56 : 32) || phoff < 0) {
            return Optional.empty();
        }
        ByteBuffer ph = bytes(ch, phoff, phnum * phentsize);
        if (ph == null) {
            return Optional.empty();
        }
        ph.order(order);
        Optional<String> interp = Optional.empty();
        long dynOff = -1;
        long dynSize = 0;
        List<long[]> loads = new ArrayList<>(); // vaddr, offset, filesz
        for (int i = 0; i < phnum; i++) {
            int p = i * phentsize;
            int type = ph.getInt(p);
            long offset = is64 ? ph.getLong(p + 8) : Integer.toUnsignedLong(ph.getInt(p + 4));
            long vaddr = is64 ? ph.getLong(p + 16) : Integer.toUnsignedLong(ph.getInt(p + 8));
            long filesz = is64 ? ph.getLong(p + 32) : Integer.toUnsignedLong(ph.getInt(p + 16));
            switch (type) {
                case PT_INTERP -> {
                    if (filesz < 2 || filesz > MAX_NAME || offset < 0 || offset > ch.size() - filesz) {
                        return Optional.empty();
                    }
                    interp = string(ch, offset, filesz);
                    if (interp.isEmpty()) {
                        return Optional.empty();
                    }
                }
                case PT_DYNAMIC -> {
                    dynOff = offset;
                    dynSize = filesz;
                }
                case PT_LOAD -> loads.add(new long[] {vaddr, offset, filesz});
                default -> {
                }
            }
        }
        if (dynOff < 0) {
            return Optional.of(new ElfFile(interp, List.of()));
        }
        int entry = is64 ? 16 : 8;
        if (dynSize < 0 || dynSize / entry > MAX_DYNAMIC) {
            return Optional.empty();
        }
        ByteBuffer dyn = bytes(ch, dynOff, (int) (dynSize / entry * entry));
        if (dyn == null) {
            return Optional.empty();
        }
        dyn.order(order);
        long strtab = -1;
        long strsz = -1;
        List<Long> needed = new ArrayList<>();
        for (int at = 0; at + entry <= dyn.limit(); at += entry) {
            long tag = is64 ? dyn.getLong(at) : dyn.getInt(at);
            long val = is64 ? dyn.getLong(at + 8) : Integer.toUnsignedLong(dyn.getInt(at + 4));
            if (tag == DT_NULL) {
                break;
            } else if (tag == DT_NEEDED) {
                needed.add(val);
            } else if (tag == DT_STRTAB) {
                strtab = val;
            } else if (tag == DT_STRSZ) {
                strsz = val;
            }
        }
        if (needed.isEmpty()) {
            return Optional.of(new ElfFile(interp, List.of()));
        }
        long strOff = -1;
        for (long[] l : loads) { // the string table's address as the file offset its segment maps
            if (strtab >= l[0] && strtab - l[0] < l[2]) {
                strOff = l[1] + (strtab - l[0]);
                break;
            }
        }
        if (strOff < 0 || strsz <= 0) {
            return Optional.empty();
        }
        List<String> names = new ArrayList<>();
        for (long n : needed) {
            if (n < 0 || n >= strsz) {
                return Optional.empty();
            }
            Optional<String> name = string(ch, strOff + n, Math.min(MAX_NAME, strsz - n));
            if (name.isEmpty()) {
                return Optional.empty();
            }
            names.add(name.get());
        }
        return Optional.of(new ElfFile(interp, List.copyOf(names)));
    }

    /** {@code length} bytes at {@code offset}, or null when the file has fewer there. */
    private static ByteBuffer bytes(FileChannel ch, long offset, int length) throws IOException {
        if (offset < 0 || length < 0 || offset > ch.size() - length) {
            return null;
        }
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining()) {
            if (ch.read(b, offset + b.position()) < 0) {
                return null;
            }
        }
        return b.flip();
    }

    /** The NUL-terminated string at {@code offset} within {@code max} bytes; empty if there is none. */
    private static Optional<String> string(FileChannel ch, long offset, long max) throws IOException {
        int n = (int) Math.min(Math.min(max, MAX_NAME), Math.max(0, ch.size() - offset));
        ByteBuffer b = n > 0 ? bytes(ch, offset, n) : null;
        if (b == null) {
            return Optional.empty();
        }
        for (int i = 0; i < n; i++) {
            if (b.get(i) == 0) {
                return i == 0 ? Optional.empty()
                        : Optional.of(new String(b.array(), 0, i, StandardCharsets.ISO_8859_1));
            }
        }
        return Optional.empty();
    }
}
