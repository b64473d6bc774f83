package io.jpmpi.profilers.accounting;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where a record goes: appended to a file shared by every job, or sent to the system log.
 *
 * <p>File: opened with O_APPEND, so the kernel moves the offset to the end and writes in one step:
 * concurrent appenders on a local filesystem never overwrite or interleave each other, provided
 * each record is one write(2) call, which a FileChannel makes for a heap buffer this small (its
 * length is checked: a short write is reported, not retried, since a second write could land after
 * another job's line). NFS emulates O_APPEND on the client (offset taken from a possibly stale
 * size) and Lustre/GPFS honour it only with their locking on, so the write is also done under an
 * exclusive fcntl lock (FileChannel.lock), which NFS (lockd/NFSv4) and Lustre (flock mount
 * option) do enforce across nodes: lock, append, unlock.
 *
 * <p>{@value #SYSLOG}: one syslog(3) call (facility user, priority info) through FFM, the record
 * after the tag {@value #TAG}; syslog's own ident (the program name) is left alone.
 */
@SuppressWarnings("restricted") // syslog(3) through FFM
final class RecordSink {
    static final String SYSLOG = "syslog";
    static final String TAG = "jpmpi-accounting: ";
    /** Records stay below the pipe buffer's atomic size, so even a pipe or a FIFO sees them whole. */
    static final int MAX_RECORD = 4096;
    private static final int LOG_USER_INFO = (1 << 3) | 6;

    private RecordSink() {
    }

    /** Appends {@code line} (no line end) to {@code target}: a file path, or {@value #SYSLOG}. */
    static void append(String target, String line) throws IOException {
        byte[] data = (line + "\n").getBytes(StandardCharsets.UTF_8);
        if (data.length > MAX_RECORD) {
            throw new IOException("the record is " + data.length + " bytes, over " + MAX_RECORD);
        }
        if (target.equals(SYSLOG)) {
            syslog(TAG + line);
            return;
        }
        try (FileChannel ch = FileChannel.open(Path.of(target), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            FileLock lock = ch.lock();
            try {
                int n = ch.write(ByteBuffer.wrap(data));
                if (n != data.length) {
                    throw new IOException(target + ": short write (" + n + " of " + data.length + " bytes)");
                }
            } finally {
                lock.release();
            }
        }
    }

    private static void syslog(String message) throws IOException {
        Linker linker = Linker.nativeLinker();
        MemorySegment at = linker.defaultLookup().find("syslog")
                .orElseThrow(() -> new IOException("the C library has no syslog"));
        MethodHandle syslog = linker.downcallHandle(at, FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, ADDRESS),
                Linker.Option.firstVariadicArg(2));
        try (Arena arena = Arena.ofConfined()) {
            syslog.invokeExact(LOG_USER_INFO, arena.allocateFrom("%s"), arena.allocateFrom(message));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("syslog: " + t, t);
        }
    }
}
