package io.jpmpi.layering.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a level's classes may resolve: the API and the exit trap, not the runtime's internals. */
class LevelClassLoaderTest {
    @Test
    void aLevelCannotReachTheRuntimesInternals(@TempDir Path jar) throws Exception {
        try (LevelClassLoader loader = new LevelClassLoader(jar.toUri().toURL(), getClass().getClassLoader())) {
            ClassNotFoundException e = assertThrows(ClassNotFoundException.class,
                    () -> loader.loadClass("io.jpmpi.layering.runtime.Abi"));
            assertTrue(e.getMessage().contains("internal to the jpmpi runtime"), e.getMessage());
            assertThrows(ClassNotFoundException.class, () -> loader.loadClass(Bridge.class.getName()));
            assertEquals(ExitTrap.class, loader.loadClass(ExitTrap.class.getName()));
            assertEquals(io.jpmpi.layering.MpiAbi.class, loader.loadClass("io.jpmpi.layering.MpiAbi"));
            assertEquals(io.jpmpi.layering.Interceptor.class, loader.loadClass("io.jpmpi.layering.Interceptor"));
            URL none = loader.getResource("nothing");
            assertEquals(null, none);
        }
    }
}
