package io.jpmpi.tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The tools {@code --tools} knows by a short name, and where each one's build lives. jpmpi's own
 * profilers join this table as they land; until then it holds the two examples the demo uses.
 */
public final class BuiltinTools {
    public record Tool(String name, EntryList.Kind kind, String description,
                       BiFunction<Layout, MpiImpl, Optional<Path>> locator, String howToBuild) {
        public Optional<Path> locate(Layout layout, MpiImpl impl) {
            return locator.apply(layout, impl).filter(Files::isRegularFile);
        }
    }

    private static final List<Tool> ALL = List.of(
            new Tool("java-counter", EntryList.Kind.JAVA_LEVEL,
                    "example Java level (examples/java-counter): calls and bytes per function, one line per rank",
                    (layout, impl) -> layout.javaCounterJar(), "./mvnw install -DskipTests"),
            new Tool("mpicount", EntryList.Kind.C_TOOL,
                    "example C PMPI tool (examples/c-tools): a call/time/byte table per rank",
                    (layout, impl) -> Optional.of(cToolPath(layout, impl, "libmpicount.so")),
                    "jpmpi demo builds it, or make -C examples/c-tools MPICC=<mpicc> OUT=target/<impl>"));

    private BuiltinTools() {
    }

    public static List<Tool> all() {
        return ALL;
    }

    public static List<String> names() {
        return ALL.stream().map(Tool::name).toList();
    }

    public static Optional<Tool> byName(String name) {
        return ALL.stream().filter(t -> t.name.equals(name)).findFirst();
    }

    /** Where an example C tool is built for {@code impl}. */
    static Path cToolPath(Layout layout, MpiImpl impl, String file) {
        return layout.cToolsDir().resolve("target").resolve(impl.id()).resolve(file);
    }
}
