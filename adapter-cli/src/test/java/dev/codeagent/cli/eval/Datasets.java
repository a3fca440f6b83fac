package dev.codeagent.cli.eval;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the benchmark datasets in {@code shared/data} beside the repository: from
 * {@code CODEAGENT_REPO_ROOT} (set by failsafe) or by walking up from the working directory. Tests
 * are skipped when they are absent, except under {@code CI=true}, where they must be there.
 */
final class Datasets {

    private Datasets() {
    }

    static Path humanEval() {
        return find("HumanEval.jsonl");
    }

    static Path mbpp() {
        return find("mbpp.jsonl");
    }

    /** The repository's root: the working directory or the nearest directory above it holding agent-domain. */
    static Path repositoryRoot() {
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isDirectory(root.resolve("agent-domain"))) {
            root = root.getParent();
        }
        if (root == null) {
            fail("no repository root (a directory holding agent-domain) at or above " + Path.of("").toAbsolutePath());
        }
        return root;
    }

    private static Path find(String name) {
        String root = System.getenv("CODEAGENT_REPO_ROOT");
        if (root != null && !root.isBlank()) {
            for (Path candidate : new Path[] {Path.of(root, "..", "shared", "data", name), Path.of(root, "shared", "data", name)}) {
                if (Files.isRegularFile(candidate)) {
                    return candidate.normalize();
                }
            }
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            for (Path candidate : new Path[] {dir.resolve("shared/data/" + name), dir.resolve("../shared/data/" + name)}) {
                if (Files.isRegularFile(candidate)) {
                    return candidate.normalize();
                }
            }
        }
        String why = name + " not found in shared/data beside the repository (CODEAGENT_REPO_ROOT=" + root + ")";
        if ("true".equals(System.getenv("CI"))) {
            fail(why + "; under CI the datasets must be present");
        }
        assumeTrue(false, why + "; skipping");
        return null;
    }
}
