package dev.nhc.cli;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No cycle between the packages of nhc's main code, all modules together (cli's test class path
 * has them all): dependencies point down (api, core, daemon and rules, checks and scripts, slurm and
 * dstack, cli), and within a module a package that needs another is not needed by it.
 *
 * <p>The checks module counts as one package here: its probes and their shared helpers still lean
 * on each other (the built-in probe list, gpu and gpu.nvml, host and kernel); untangling them waits
 * for the AMD backend's move of the gpu packages. A cycle between it and any other package fails.
 */
class PackageCyclesTest {
    /** Main code only: the modules' test classes (and this module's) are not nhc. */
    private static final ImportOption MAIN_CODE = location -> !location.contains("/test-classes/") && !location.contains("-tests.jar");

    private static final SliceAssignment PACKAGES = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String p = c.getPackageName();
            if (!p.startsWith("dev.nhc.")) {
                return SliceIdentifier.ignore();
            }
            return SliceIdentifier.of(p.equals("dev.nhc.checks") || p.startsWith("dev.nhc.checks.") ? "dev.nhc.checks.**" : p);
        }

        @Override
        public String getDescription() {
            return "nhc's packages (dev.nhc.checks.** as one)";
        }
    };

    private static final ArchRule NO_CYCLES = slices().assignedFrom(PACKAGES).should().beFreeOfCycles();

    @Test
    void nhcsPackagesHaveNoCycle() {
        JavaClasses main = new ClassFileImporter().withImportOption(MAIN_CODE).importPackages("dev.nhc");
        Set<String> read = main.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        assertTrue(read.containsAll(List.of("dev.nhc.probe", "dev.nhc.engine.plan", "dev.nhc.daemon", "dev.nhc.rules", "dev.nhc.checks.gpu",
                "dev.nhc.scripts", "dev.nhc.slurm", "dev.nhc.dstack", "dev.nhc.cli")), "every module's classes were read: " + read);
        assertTrue(read.stream().noneMatch(p -> p.startsWith("dev.nhc.cli.cycle")), "no test class");
        NO_CYCLES.check(main);
    }

    /** The rule sees a cycle: two packages of this test's own that need each other. */
    @Test
    void aCycleFails() {
        JavaClasses cycle = new ClassFileImporter().importPackages("dev.nhc.cli.cycle");
        AssertionError e = assertThrows(AssertionError.class, () -> NO_CYCLES.check(cycle));
        assertTrue(e.getMessage().contains("dev.nhc.cli.cycle.a") && e.getMessage().contains("dev.nhc.cli.cycle.b"), e.getMessage());
    }
}
