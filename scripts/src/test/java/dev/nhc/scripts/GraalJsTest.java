package dev.nhc.scripts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where script.js finds GraalJS; the packaged lib/polyglot case is PackageLayoutIT in the cli module. */
class GraalJsTest {
    @TempDir
    Path dir;

    @Test
    void graalJsOnTheClassPathIsUsedDirectly() throws Exception {
        JsRunner r = GraalJs.create(GraalJs.class.getClassLoader(), null);
        assertEquals(GraalJs.class.getClassLoader(), r.getClass().getClassLoader());
        assertEquals("3", r.run("1 + 2", "t.js", "{}", "{}", "n", p -> "", p -> java.util.List.of(), java.time.Duration.ofSeconds(5)));
    }

    @Test
    void withoutGraalJsAnywhereScriptJsSaysWhatIsMissing() throws Exception {
        try (URLClassLoader bare = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
            ScriptFailure e = assertThrows(ScriptFailure.class, () -> GraalJs.create(bare, dir.resolve("lib/polyglot")));
            assertTrue(e.getMessage().startsWith("script.js needs GraalJS, which is not installed"), e.getMessage());
            assertTrue(e.getMessage().contains(dir.resolve("lib/polyglot").toString()), e.getMessage());
        }
    }
}
