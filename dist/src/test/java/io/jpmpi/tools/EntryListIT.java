package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Built-in tools resolve to their parts: the profile tool to its recorder alone and the accounting
 * tool to one C level (no JVM in the ranks for either); a Java tool listed with them starts one.
 */
class EntryListIT {
    @ParameterizedTest
    @ValueSource(strings = {"openmpi", "mpich"})
    void builtInToolsResolveToTheirParts(String id) throws JpmpiException {
        MpiImpl impl = MpiImpl.byId(id).orElseThrow();
        Layout layout = Layout.current();
        String recorder = layout.profileRecorder(impl).toString();
        String accounting = layout.accountingLevel(impl).toString();

        // the profile tool is its recorder alone: no JVM in the ranks (the launcher makes the profile)
        EntryList both = EntryList.resolve("profile,accounting", layout, impl, Map.of());
        assertEquals(List.of(recorder, accounting), resolved(both));
        assertEquals(String.join(",", recorder, accounting), both.render());
        assertFalse(both.hasJava());

        EntryList reversed = EntryList.resolve("v,accounting,profile", layout, impl, Map.of());
        assertEquals(List.of("v", accounting, recorder), resolved(reversed));
        assertEquals(List.of(accounting, recorder), reversed.cTools());
        assertFalse(reversed.hasJava());

        EntryList withJava = EntryList.resolve("profile,java-counter", layout, impl, Map.of());
        assertTrue(withJava.hasJava());

        EntryList alone = EntryList.resolve("accounting", layout, impl, Map.of());
        assertEquals(List.of(accounting), resolved(alone));
        assertEquals(List.of(EntryList.Kind.C_TOOL), alone.items().stream().map(EntryList.Item::kind).toList());
        assertFalse(alone.hasJava());
    }

    /** A tool listed twice, by name or as the same file, is refused with one line naming both items. */
    @ParameterizedTest
    @ValueSource(strings = {"openmpi", "mpich"})
    void aToolListedTwiceIsRefused(String id) {
        MpiImpl impl = MpiImpl.byId(id).orElseThrow();
        Layout layout = Layout.current();
        JpmpiException twice = assertThrows(JpmpiException.class,
                () -> EntryList.resolve("profile,java-counter,profile", layout, impl, Map.of()));
        assertEquals("tool list item 3 'profile': listed already as item 1; a tool can be one level only",
                twice.getMessage());
        String jar = layout.profileJar().toString();
        String viaDots = layout.profileJar().getParent().resolve("..").resolve(layout.profileJar().getParent()
                .getFileName()).resolve(layout.profileJar().getFileName()).toString();
        JpmpiException same = assertThrows(JpmpiException.class,
                () -> EntryList.resolve(jar + "," + viaDots, layout, impl, Map.of()));
        assertTrue(same.getMessage().startsWith("tool list item 2 '" + viaDots + "': the same file as item 1"),
                same.getMessage());
    }

    private static List<String> resolved(EntryList list) {
        return list.items().stream().map(EntryList.Item::resolved).toList();
    }
}
