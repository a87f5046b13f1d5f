package dev.nhc.engine.plan;

import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeCatalog;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProbeRegistryTest {
    static final AtomicInteger CREATED = new AtomicInteger();

    public static final class Counted implements Probe {
        public Counted() {
            CREATED.incrementAndGet();
        }

        @Override
        public ProbeSpec spec() {
            return ProbeSpec.builder("test.counted", "counts its instances").field("value", Unit.COUNT, "a value").build();
        }

        @Override
        public ProbeResult probe(ProbeContext ctx) {
            return ProbeResult.builder().build();
        }
    }

    /** Registered under a name its spec does not carry. */
    public static final class Misnamed implements Probe {
        @Override
        public ProbeSpec spec() {
            return ProbeSpec.builder("test.other", "says another name").build();
        }

        @Override
        public ProbeResult probe(ProbeContext ctx) {
            return ProbeResult.builder().build();
        }
    }

    public static final class Catalog implements ProbeCatalog {
        @Override
        public void register(Registrar r) {
            r.add("test.counted", Counted.class);
            r.add("test.misnamed", Misnamed.class);
        }
    }

    public static final class Twice implements ProbeCatalog {
        @Override
        public void register(Registrar r) {
            r.add("test.counted", Counted.class);
        }
    }

    /** A class loader that sees the given service files, the way a site jar in lib/ext does. */
    private static URLClassLoader withServices(Path dir, String... catalogs) throws Exception {
        Path services = Files.createDirectories(dir.resolve("META-INF/services"));
        Files.writeString(services.resolve(ProbeCatalog.class.getName()), String.join("\n", catalogs) + "\n");
        return new URLClassLoader(new URL[]{dir.toUri().toURL()}, ProbeRegistryTest.class.getClassLoader());
    }

    @Test
    void aCatalogsProbesAreCreatedOnlyWhenAskedForAndOnce(@TempDir Path dir) throws Exception {
        try (URLClassLoader loader = withServices(dir, Catalog.class.getName())) {
            int before = CREATED.get();
            ProbeRegistry r = ProbeRegistry.load(loader);
            assertTrue(r.names().containsAll(List.of("test.counted", "test.misnamed")), r.names().toString());
            assertEquals(before, CREATED.get(), "listing names creates nothing");
            Probe p = r.find("test.counted").orElseThrow();
            assertSame(p, r.find("test.counted").orElseThrow());
            assertEquals(before + 1, CREATED.get());
        }
    }

    @Test
    void aProbeWhoseSpecHasAnotherNameIsLeftOutButStillKnown(@TempDir Path dir) throws Exception {
        try (URLClassLoader loader = withServices(dir, Catalog.class.getName())) {
            ProbeRegistry r = ProbeRegistry.load(loader);
            assertTrue(r.find("test.misnamed").isEmpty());
            assertTrue(r.names().contains("test.misnamed"));
            assertTrue(!r.all().containsKey("test.misnamed") && r.all().containsKey("test.counted"), r.all().keySet().toString());
        }
    }

    /** A site's probe that takes the name of another. */
    public static final class Impostor implements ProbeCatalog {
        @Override
        public void register(Registrar r) {
            r.add("test.counted", Misnamed.class);
        }
    }

    public static final class Throwing implements ProbeCatalog {
        @Override
        public void register(Registrar r) {
            throw new IllegalStateException("site catalog is broken");
        }
    }

    @Test
    void twoDifferentProbesUnderOneNameAreBothLeftOutAndTheOthersStay(@TempDir Path dir) throws Exception {
        try (URLClassLoader loader = withServices(dir, Catalog.class.getName(), Impostor.class.getName())) {
            ProbeRegistry r = ProbeRegistry.load(loader);
            assertTrue(r.find("test.counted").isEmpty(), "neither runs under a name that means the other");
            assertTrue(r.names().contains("test.counted"), "a config naming it is told it could not be loaded");
            assertTrue(r.names().contains("test.misnamed"));
        }
    }

    @Test
    void theSameProbeRegisteredTwiceIsOneProbe(@TempDir Path dir) throws Exception {
        try (URLClassLoader loader = withServices(dir, Catalog.class.getName(), Twice.class.getName())) {
            assertTrue(ProbeRegistry.load(loader).find("test.counted").isPresent());
        }
    }

    @Test
    void aCatalogThatThrowsIsLeftOutAndTheOthersStay(@TempDir Path dir) throws Exception {
        try (URLClassLoader loader = withServices(dir, Throwing.class.getName(), Catalog.class.getName())) {
            ProbeRegistry r = ProbeRegistry.load(loader);
            assertTrue(r.find("test.counted").isPresent(), r.names().toString());
        }
    }
}
