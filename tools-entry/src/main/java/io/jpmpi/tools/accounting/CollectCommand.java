package io.jpmpi.tools.accounting;

import io.jpmpi.profilers.accounting.AccountingRecord;
import io.jpmpi.tools.Context;
import io.jpmpi.tools.Exit;
import io.jpmpi.tools.ExitCode;
import io.jpmpi.tools.JpmpiException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import jdk.net.ExtendedSocketOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jpmpi accounting collect}: the site's store of accounting records, which no user can forge.
 * Runs as its own (service) user and listens on a Unix socket; the accounting tool of every job
 * (JPMPI_ACCOUNTING_FILE=unix:SOCKET) sends its one line there. The kernel tells who is at the other
 * end (SO_PEERCRED): the record's user is that user's name, whatever the line says, and it is appended
 * to a file only the collector's user can write. A user can add records of their own jobs, never one
 * in another user's name, and can neither change nor remove a line (profilers/accounting/ACCOUNTING.md,
 * "A store users cannot forge").
 */
@Command(name = "collect", mixinStandardHelpOptions = true,
        description = {"Receive the accounting records of every job on a Unix socket and append them to FILE,"
                + " each with the user the kernel names for the sending process (SO_PEERCRED), never the one"
                + " the line says. Run it as a service user that alone can write FILE; jobs send with"
                + " JPMPI_ACCOUNTING_FILE=unix:SOCKET. Runs until stopped (SIGTERM)."})
public final class CollectCommand implements Callable<Integer> {
    /** What a sender gets to say its record: a line, then the connection ends. */
    static final int MAX_CONNECTIONS = 64;
    /** A sender that has not sent its whole line by then is cut off. */
    static final long READ_SECONDS = 10;

    @Option(names = "--socket", required = true, paramLabel = "SOCKET",
            description = "The Unix socket to listen on (made here, mode 0666: every user's jobs send to it;"
                    + " a stale socket left by an earlier collector is replaced, anything else refused).")
    Path socket;

    @Option(names = "--file", required = true, paramLabel = "FILE",
            description = "The records file, appended to (made with mode 0644 if missing; a symbolic link is refused).")
    Path file;

    private final Context ctx;

    public CollectCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws JpmpiException {
        checkFile();
        ServerSocketChannel server = listen();
        Semaphore slots = new Semaphore(MAX_CONNECTIONS);
        ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jpmpi-collect-deadlines");
            t.setDaemon(true);
            return t;
        });
        Exit.addHook(new Thread(() -> {
            try {
                server.close();
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                // going away anyway: the next start replaces a stale socket
            }
        }));
        ctx.err().println("jpmpi accounting collect: listening on " + socket + ", appending to " + file);
        ctx.err().flush();
        while (server.isOpen()) {
            SocketChannel client;
            try {
                client = server.accept();
            } catch (ClosedChannelException e) {
                break;
            } catch (IOException e) {
                ctx.err().println("jpmpi accounting collect: accept: " + e.getMessage());
                continue;
            }
            if (!slots.tryAcquire()) {
                say("refused a connection: " + MAX_CONNECTIONS + " senders at once already");
                close(client);
                continue;
            }
            Thread.ofVirtual().start(() -> {
                try {
                    serve(client, deadlines);
                } finally {
                    slots.release();
                }
            });
        }
        return ExitCode.OK.code;
    }

    /** The records file: a regular file or none yet; never a link. */
    private void checkFile() throws JpmpiException {
        if (Files.isSymbolicLink(file)) {
            throw new JpmpiException(ExitCode.BAD_RECORDS, "accounting collect: " + file + " is a symbolic link;"
                    + " name the file itself");
        }
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new JpmpiException(ExitCode.BAD_RECORDS, "accounting collect: " + file + " is not a regular file");
        }
    }

    private ServerSocketChannel listen() throws JpmpiException {
        try {
            if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                PosixFileAttributes a = Files.readAttributes(socket, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (!a.isOther() || a.isSymbolicLink()) {
                    throw new JpmpiException(ExitCode.CANNOT_START, "accounting collect: " + socket
                            + " exists and is not a socket; nothing replaced");
                }
                Files.delete(socket); // a socket an earlier collector left
            }
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket), MAX_CONNECTIONS);
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
            return server;
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "accounting collect: cannot listen on " + socket + ": "
                    + e.getMessage());
        }
    }

    /** One sender: who it is, its line, the record appended in that user's name, the answer. */
    private void serve(SocketChannel client, ScheduledExecutorService deadlines) {
        ScheduledFuture<?> cut = deadlines.schedule(() -> close(client), READ_SECONDS, TimeUnit.SECONDS);
        try (client) {
            UserPrincipal user = client.getOption(ExtendedSocketOptions.SO_PEERCRED).user();
            String line = readLine(client);
            String answer;
            if (line == null) {
                answer = "refused: no line of at most " + AccountingRecord.MAX_RECORD + " bytes";
            } else {
                answer = append(user, line);
            }
            if (!answer.equals("ok")) {
                say("from " + user.getName() + ": " + answer);
            }
            client.write(ByteBuffer.wrap((answer + "\n").getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            // the sender went away or was cut off: nothing was appended for it
        } finally {
            cut.cancel(false);
        }
    }

    /** The line up to its end (excluded), or null: longer than a record may be, or no line end. */
    private static String readLine(SocketChannel client) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(AccountingRecord.MAX_RECORD);
        while (buf.hasRemaining()) {
            if (client.read(buf) < 0) {
                break;
            }
            for (int i = 0; i < buf.position(); i++) {
                if (buf.get(i) == '\n') {
                    return new String(buf.array(), 0, i, StandardCharsets.UTF_8);
                }
            }
        }
        return null;
    }

    private synchronized String append(UserPrincipal user, String line) {
        AccountingRecord r;
        try {
            r = AccountingRecord.parse(line);
        } catch (AccountingRecord.FormatException e) {
            return "refused: not an accounting record (" + e.getMessage() + ")";
        }
        AccountingRecord stamped = new AccountingRecord(r.job(), user.getName(), r.exe(), r.host(), r.mpi(), r.start(),
                r.end(), r.wallS(), r.ranks(), r.nodes(), r.coreH(), r.mpiPct(), r.top(), r.hwc(), r.acctMs(),
                r.samples(), r.step());
        byte[] bytes = (stamped.toJson() + "\n").getBytes(StandardCharsets.UTF_8);
        Set<OpenOption> how = Set.of(StandardOpenOption.WRITE, StandardOpenOption.APPEND, StandardOpenOption.CREATE,
                LinkOption.NOFOLLOW_LINKS);
        // Opened for each record: after the file is moved away (rotation), the next record makes a new one.
        try (FileChannel out = FileChannel.open(file, how,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")))) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                out.write(b);
            }
            return "ok";
        } catch (IOException e) {
            return "not stored: " + file + ": " + e.getMessage();
        }
    }

    private void say(String what) {
        synchronized (ctx.err()) {
            ctx.err().println("jpmpi accounting collect: " + what);
            ctx.err().flush();
        }
    }

    private static void close(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing: nothing more to do
        }
    }
}
