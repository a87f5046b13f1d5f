package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How DocCommandsIT reads Markdown: blocks, their directives, commands, expected exit codes and shown output. */
class DocBlocksTest {
    @TempDir
    Path dir;

    private List<DocBlocks.Block> read(String markdown) throws Exception {
        Path f = dir.resolve("doc.md");
        Files.writeString(f, markdown);
        return DocBlocks.read(f, "doc.md");
    }

    @Test
    void blocksKnowTheirLineLanguageAndDirective() throws Exception {
        List<DocBlocks.Block> blocks = read("# Title\n\n```sh\nnhc version\n```\n\n"
                + "<!-- doc-test: skip — installs the .deb; install-test.sh does -->\n\n```sh\ndpkg -i x.deb\n```\n"
                + "1. a step\n   ```yaml\n   checks:\n     - name: a\n   ```\n```\nplain\n```\n");
        assertEquals(4, blocks.size());
        assertEquals("doc.md:3", blocks.get(0).where());
        assertEquals("sh", blocks.get(0).language());
        assertNull(blocks.get(0).directiveKind());
        assertEquals("skip", blocks.get(1).directiveKind());
        assertEquals("installs the .deb; install-test.sh does", blocks.get(1).directiveReason());
        assertEquals(List.of("checks:", "  - name: a"), blocks.get(2).lines(), "the list item's indentation is not the block's");
        assertTrue(blocks.get(2).isYaml());
        assertEquals("", blocks.get(3).language());
    }

    @Test
    void shellCommandsSkipCommentsJoinContinuationsAndSayTheirExitCode() throws Exception {
        DocBlocks.Block b = read("```sh\n# a comment\nmake -C x      # → y\n\nnhc run \\\n  -c a.yaml   # exit 1: the node fails\n"
                + "nhc replay --json -c b.yaml   # exit 2\n```\n").get(0);
        List<DocBlocks.Command> c = b.commands();
        assertEquals(3, c.size());
        assertEquals("make -C x      # → y", c.get(0).text());
        assertEquals(3, c.get(0).line());
        assertEquals(0, c.get(0).exit());
        assertEquals("nhc run \\\n  -c a.yaml   # exit 1: the node fails", c.get(1).text());
        assertEquals(5, c.get(1).line());
        assertEquals(1, c.get(1).exit());
        assertEquals(2, c.get(2).exit());
        assertEquals(0, DocBlocks.exitOf("echo 'exit 1'"), "only a comment says an exit code");
    }

    @Test
    void consoleBlocksPairCommandsWithTheOutputShown() throws Exception {
        DocBlocks.Block b = read("```console\n$ nhc replay \\\n    --x y   # exit 1\nFAIL    a: b\nreplay: FAIL (1 check run)\n"
                + "$ nhc version\n```\n").get(0);
        List<DocBlocks.Command> c = b.commands();
        assertEquals(2, c.size());
        assertEquals("nhc replay \\\n    --x y   # exit 1", c.get(0).text());
        assertEquals(1, c.get(0).exit());
        assertEquals(List.of("FAIL    a: b", "replay: FAIL (1 check run)"), c.get(0).shownOutput());
        assertTrue(c.get(1).shownOutput().isEmpty());
    }

    @Test
    void anUnclosedBlockIsAnError() {
        assertThrows(IllegalStateException.class, () -> read("```sh\nnhc version\n"));
    }

    @Test
    void shownOutputMatchesWithOtherDigitsAndSpacing() {
        String p = DocCommandsIT.shownPattern("gpu-001: FAIL (7 checks run, 0 skipped) in 131 ms");
        assertTrue("gpu-001: FAIL (7 checks run, 0 skipped) in 98 ms".matches(p));
        assertFalse("gpu-001: PASS (7 checks run, 0 skipped) in 98 ms".matches(p));
        String cut = DocCommandsIT.shownPattern("PASS    gpus   gpu.inventory   101ms  ok: gpu_count 8; …");
        assertTrue("PASS    gpus               gpu.inventory       11ms  ok: gpu_count 8; ok: model_matches true".matches(cut));
    }

    @Test
    void partsOfAConfigAreCompletedIntoOne() {
        assertEquals("nhc: 1\nchecks: []\n", DocCommandsIT.asConfig(List.of("nhc: 1", "checks: []")));
        assertEquals("nhc: 1\nchecks:\n  - name: dcgm\n    use: dcgm.health\n",
                DocCommandsIT.asConfig(List.of("- name: dcgm", "  use: dcgm.health")));
        assertEquals("nhc: 1\ndaemon:\n  metrics_listen: 127.0.0.1:9464\nchecks:\n  - { name: doc-example, use: load }\n",
                DocCommandsIT.asConfig(List.of("daemon:", "  metrics_listen: 127.0.0.1:9464")));
    }
}
