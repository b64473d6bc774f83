package io.jpmpi.profilers.report;

import io.jpmpi.profilers.profile.SiteTables;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Names the call sites of the ranks' tables at merge time (PROFILE.md, "Call sites"): binutils'
 * {@code addr2line -f -C -e MODULE OFFSET...}, one process per module (per {@value #PER_PROCESS} of its
 * offsets) with its offsets on its command line (each return address minus one, the byte in the
 * calling line) and its answer read from a pipe, {@value #PARALLEL} processes at a time, within
 * {@value #LIMIT_SECONDS} s in all. No file is written: a temporary file's random name would cost
 * the launcher SecureRandom's start (~10 ms in a fresh JVM) and a place in a shared /tmp. A site gets
 * file, line and function from the module's debug information; without it, the function from its
 * symbol table; without that, the dynamic symbol the rank found; without that, the module and offset.
 * What could not be done is said once, in {@link CallSites#note()}.
 */
public final class SiteNames {
    /** The longest the resolution may take, for all modules together. */
    static final long LIMIT_SECONDS = 30;
    /** The program asked. */
    static final String ADDR2LINE = "addr2line";
    /** How many processes are asked at once (a job's sites may be in a hundred libraries). */
    static final int PARALLEL = 8;
    /** The most offsets one process is given, on its command line (~20 bytes each: far under ARG_MAX). */
    static final int PER_PROCESS = 2048;

    private SiteNames() {
    }

    /** The sites of {@code merged}, named with the {@code addr2line} on the PATH. */
    public static CallSites name(SiteTables.Merged merged) {
        return name(merged, ADDR2LINE);
    }

    /** A function, a file and a line as addr2line answered (null and 0 where it answered "??"). */
    record Answer(String function, String file, int line) {
        static final Answer NONE = new Answer(null, null, 0);
    }

    /** The same with {@code program} as addr2line (tests name one that is not there). */
    static CallSites name(SiteTables.Merged merged, String program) {
        Map<String, TreeSet<Long>> byModule = new LinkedHashMap<>();
        for (SiteTables.Raw r : merged.sites()) {
            if (!r.module().equals("?") && r.offset() > 0) {
                byModule.computeIfAbsent(r.module(), m -> new TreeSet<>()).add(r.offset());
            }
        }
        List<String> problems = new ArrayList<>();
        Map<String, Map<Long, Answer>> answers = ask(byModule, program, problems);
        List<CallSites.Site> out = new ArrayList<>(merged.sites().size());
        TreeSet<String> noLines = new TreeSet<>();
        for (SiteTables.Raw r : merged.sites()) {
            Answer a = answers.getOrDefault(r.module(), Map.of()).getOrDefault(r.offset(), Answer.NONE);
            CallSites.Resolved how;
            if (a.file() != null && a.line() > 0) {
                how = CallSites.Resolved.LINE;
            } else if (a.function() != null) {
                how = CallSites.Resolved.FUNCTION;
            } else if (r.symbol() != null) {
                how = CallSites.Resolved.SYMBOL;
            } else {
                how = CallSites.Resolved.MODULE;
            }
            if (how != CallSites.Resolved.LINE && answers.containsKey(r.module())) {
                noLines.add(r.module());
            }
            out.add(new CallSites.Site(r.function(), r.module(), r.offset(), how,
                    how == CallSites.Resolved.LINE ? a.file() : null, how == CallSites.Resolved.LINE ? a.line() : 0,
                    a.function(), r.symbol(), r.calls(), r.timeSeconds(), r.bytes()));
        }
        if (!noLines.isEmpty()) {
            problems.add("no debug information for some sites in " + names(noLines)
                    + " (addr2line answered ??): named by function, dynamic symbol or module+offset");
        }
        if (merged.problem() != null) {
            problems.add(merged.problem());
        }
        return new CallSites(problems.isEmpty() ? null : String.join("; ", problems), out);
    }

    /** Up to three modules' file names, then how many more. */
    private static String names(TreeSet<String> modules) {
        List<String> shown = new ArrayList<>();
        for (String m : modules) {
            if (shown.size() == 3) {
                shown.add("and " + (modules.size() - 3) + " more");
                break;
            }
            shown.add(Path.of(m).getFileName().toString());
        }
        return String.join(", ", shown);
    }

    /**
     * Every module's offsets, {@value #PARALLEL} processes at a time, at most {@value #PER_PROCESS}
     * offsets each: module → offset → answer (none for a module not answered).
     */
    private static Map<String, Map<Long, Answer>> ask(Map<String, TreeSet<Long>> byModule, String program,
                                                      List<String> problems) {
        Map<String, Map<Long, Answer>> out = new HashMap<>();
        List<Running> running = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        int waited = 0;
        try {
            modules:
            for (var e : byModule.entrySet()) {
                if (!Files.isRegularFile(Path.of(e.getKey()))) {
                    failed.add(e.getKey() + " is no longer there");
                    continue;
                }
                List<Long> all = List.copyOf(e.getValue());
                for (int from = 0; from < all.size(); from += PER_PROCESS) {
                    if (running.size() - waited == PARALLEL) {
                        collect(running.get(waited++), deadline, program, out, failed);
                    }
                    List<Long> offsets = all.subList(from, Math.min(all.size(), from + PER_PROCESS));
                    List<String> command = new ArrayList<>(offsets.size() + 5);
                    command.addAll(List.of(program, "-f", "-C", "-e", e.getKey()));
                    for (long o : offsets) {
                        command.add("0x" + Long.toHexString(o - 1));
                    }
                    Process p;
                    try {
                        p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(NO_INPUT))
                                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                    } catch (IOException notThere) {
                        problems.add(program + " could not be run (" + oneLine(notThere) + "; it is in binutils):"
                                + " sites are named by dynamic symbol or module+offset");
                        break modules;
                    }
                    running.add(new Running(e.getKey(), offsets, p));
                }
            }
            while (waited < running.size()) {
                collect(running.get(waited++), deadline, program, out, failed);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed.add("interrupted while asking " + program);
        } finally {
            for (Running r : running) {
                r.process.destroyForcibly(); // its output pipe closes, and its reader ends
            }
        }
        if (!failed.isEmpty()) {
            List<String> said = failed.size() <= 3 ? failed : new ArrayList<>(failed.subList(0, 3));
            if (failed.size() > 3) {
                said.add("and " + (failed.size() - 3) + " more modules");
            }
            problems.add(String.join("; ", said) + ": those sites are named by dynamic symbol or module+offset");
        }
        return out;
    }

    /** addr2line's input: none (its addresses are on its command line). */
    private static final File NO_INPUT = new File("/dev/null");

    /**
     * One addr2line process and the thread that reads its answer from its output pipe as it comes (a
     * process whose pipe is full would otherwise wait for a reader forever).
     */
    private static final class Running {
        final String module;
        final List<Long> offsets;
        final Process process;
        final Thread reader;
        private volatile byte[] answer;

        Running(String module, List<Long> offsets, Process process) {
            this.module = module;
            this.offsets = offsets;
            this.process = process;
            this.reader = new Thread(this::read, "jpmpi-addr2line");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (InputStream in = process.getInputStream()) {
                answer = in.readAllBytes();
            } catch (IOException e) {
                answer = null; // a process destroyed while it answered: no answer
            }
        }
    }

    /** Waits for {@code r} until {@code deadline} (System.nanoTime) and takes its answers, or says why not. */
    private static void collect(Running r, long deadline, String program, Map<String, Map<Long, Answer>> out,
                                List<String> failed) throws InterruptedException {
        boolean done = r.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (done) {
            r.reader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            done = !r.reader.isAlive();
        }
        if (!done) {
            r.process.destroyForcibly();
            failed.add(program + " took longer than " + LIMIT_SECONDS + " s in all, at " + r.module);
        } else if (r.process.exitValue() != 0) {
            failed.add(program + " failed (exit status " + r.process.exitValue() + ") on " + r.module);
        } else {
            byte[] answer = r.answer;
            Map<Long, Answer> answers = answer == null ? null
                    : parse(new String(answer, StandardCharsets.UTF_8).lines().toList(), r.offsets);
            if (answers == null) {
                failed.add(program + " gave an answer of the wrong shape for " + r.module);
            } else {
                out.computeIfAbsent(r.module, m -> new HashMap<>()).putAll(answers);
            }
        }
    }

    /** Two lines per offset (function, then file:line); null if the answer has another shape. */
    static Map<Long, Answer> parse(List<String> lines, List<Long> offsets) {
        if (lines.size() != 2 * offsets.size()) {
            return null;
        }
        Map<Long, Answer> out = new HashMap<>();
        for (int i = 0; i < offsets.size(); i++) {
            String function = lines.get(2 * i).strip();
            String where = lines.get(2 * i + 1).replaceFirst(" \\(discriminator \\d+\\)$", "").strip();
            int colon = where.lastIndexOf(':');
            String file = colon > 0 ? where.substring(0, colon) : null;
            int line = 0;
            if (colon > 0) {
                try {
                    line = Integer.parseInt(where.substring(colon + 1));
                } catch (NumberFormatException e) {
                    line = 0; // "?": no line
                }
            }
            if (file != null && file.startsWith("??")) {
                file = null;
            }
            out.put(offsets.get(i), new Answer(function.isEmpty() || function.startsWith("??") ? null : function,
                    file, file == null ? 0 : Math.max(0, line)));
        }
        return out;
    }

    private static String oneLine(IOException e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m.lines().findFirst().orElse("");
    }
}
