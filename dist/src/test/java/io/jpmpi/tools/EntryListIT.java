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
 * Built-in tools that share a part load it once, first place kept; the accounting tool alone is
 * one C level (no recorder, no Java level: no cost per call, no JVM in the ranks).
 */
class EntryListIT {
    @ParameterizedTest
    @ValueSource(strings = {"openmpi", "mpich"})
    void builtInToolsResolveToTheirParts(String id) throws JpmpiException {
        MpiImpl impl = MpiImpl.byId(id).orElseThrow();
        Layout layout = Layout.current();
        String recorder = layout.profileRecorder(impl).toString();
        String profile = layout.profileJar().toString();
        String accounting = layout.accountingLevel(impl).toString();

        EntryList both = EntryList.resolve("profile,accounting", layout, impl, Map.of());
        assertEquals(List.of(recorder, profile, accounting), resolved(both));
        assertEquals(String.join(",", recorder, profile, accounting), both.render());

        EntryList reversed = EntryList.resolve("v,accounting,profile", layout, impl, Map.of());
        assertEquals(List.of("v", accounting, recorder, profile), resolved(reversed));
        assertEquals(List.of(accounting, recorder), reversed.cTools());
        assertTrue(reversed.hasJava());

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
