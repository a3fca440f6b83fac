package dev.codeagent.application.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateDirectoryTest {

    @TempDir
    Path tmp;

    /** A world-writable sticky parent, like /tmp, where another user can squat a name first. */
    private Path sharedParent() throws IOException {
        Path shared = tmp.resolve("shared");
        Files.createDirectory(shared);
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(shared, "unix:mode", 01777);
        return shared;
    }

    private static void chownToAnotherUser(Path p) throws IOException {
        // root can hand a path to any uid: what another local user's squat leaves behind
        Files.setAttribute(p, "unix:uid", 4242, LinkOption.NOFOLLOW_LINKS);
    }

    private static boolean root() throws IOException {
        return PrivateDirectory.currentUid() == 0;
    }

    @Test
    void makesAMissingDirectoryOwnerOnly() throws IOException {
        Path dir = PrivateDirectory.ensure(tmp.resolve("a/b/c"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("a")))).isEqualTo("rwx------");
        assertThat(PrivateDirectory.ensure(dir)).isEqualTo(dir);
    }

    @Test
    void refusesADirectoryAnotherUserMadeFirst() throws IOException {
        assumeTrue(root(), "needs root to hand a directory to another uid");
        Path squat = sharedParent().resolve("codeagent-x");
        Files.createDirectory(squat, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        chownToAnotherUser(squat);
        assertThatThrownBy(() -> PrivateDirectory.ensure(squat))
                .isInstanceOf(PrivateDirectory.InsecurePathException.class)
                .hasMessageContaining(squat.toString()).hasMessageContaining("uid 4242");
    }

    @Test
    void refusesALinkWhereTheDirectoryShouldBe() throws IOException {
        Path target = tmp.resolve("elsewhere");
        Files.createDirectory(target);
        Path link = sharedParent().resolve("codeagent-x");
        Files.createSymbolicLink(link, target);
        assertThatThrownBy(() -> PrivateDirectory.ensure(link))
                .isInstanceOf(PrivateDirectory.InsecurePathException.class)
                .hasMessageContaining("symbolic link");
    }

    @Test
    void refusesAnAncestorAnotherUserOwns() throws IOException {
        assumeTrue(root(), "needs root to hand a directory to another uid");
        Path theirs = sharedParent().resolve("theirs");
        Files.createDirectory(theirs);
        chownToAnotherUser(theirs);
        assertThatThrownBy(() -> PrivateDirectory.ensure(theirs.resolve("mine")))
                .isInstanceOf(PrivateDirectory.InsecurePathException.class)
                .hasMessageContaining(theirs.toString());
        assertThat(theirs.resolve("mine")).doesNotExist();
    }

    @Test
    void refusesAnAncestorWritableByOthersWithoutTheStickyBit() throws IOException {
        Path open = tmp.resolve("open");
        Files.createDirectory(open);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> PrivateDirectory.ensure(open.resolve("mine")))
                .isInstanceOf(PrivateDirectory.InsecurePathException.class)
                .hasMessageContaining("not sticky");
    }

    @Test
    void refusesAnOwnDirectoryOthersCouldRead() throws IOException {
        Path loose = tmp.resolve("loose");
        Files.createDirectory(loose);
        Files.setPosixFilePermissions(loose, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> PrivateDirectory.ensure(loose))
                .isInstanceOf(PrivateDirectory.InsecurePathException.class)
                .hasMessageContaining("rwxr-xr-x");
    }

    @Test
    void aSearchableDirectoryIsMadeSearchableAllTheWayDown() throws IOException {
        Path dir = PrivateDirectory.ensure(tmp.resolve("x/y"), PosixFilePermissions.fromString("rwx--x--x"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("x")))).isEqualTo("rwx--x--x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx--x--x");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        assertThat(PrivateDirectory.ensure(dir, PosixFilePermissions.fromString("rwx--x--x"))).as("narrower is fine").isEqualTo(dir);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).as("never widened").isEqualTo("rwx------");
    }

    @Test
    void aSharedDirectoryLikeTmpIsRefusedWithoutBeingToldToRemoveIt() throws IOException {
        Path shared = sharedParent();
        assertThatThrownBy(() -> PrivateDirectory.ensure(shared))
                .isInstanceOf(PrivateDirectory.InsecurePathException.class)
                .hasMessageContaining(shared.toString()).hasMessageContaining("writable by other users")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("remove"));
    }

    @Test
    void verifyChecksWithoutMaking() throws IOException {
        Path missing = tmp.resolve("not-there");
        assertThatThrownBy(() -> PrivateDirectory.verify(missing)).isInstanceOf(java.nio.file.NoSuchFileException.class);
        assertThat(missing).doesNotExist();
        Path mine = PrivateDirectory.ensure(tmp.resolve("mine"));
        assertThat(PrivateDirectory.verify(mine)).isEqualTo(mine);
        Path link = tmp.resolve("link");
        Files.createSymbolicLink(link, mine);
        assertThatThrownBy(() -> PrivateDirectory.verify(link)).isInstanceOf(PrivateDirectory.InsecurePathException.class);
        Files.setPosixFilePermissions(mine, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> PrivateDirectory.verify(mine)).isInstanceOf(PrivateDirectory.InsecurePathException.class)
                .hasMessageContaining(mine.toString());
    }

    @Test
    void verifyRefusesADirectoryAnotherUserMade() throws IOException {
        assumeTrue(root(), "needs root to hand a directory to another uid");
        Path squat = sharedParent().resolve("codeagent-uids");
        Files.createDirectory(squat);
        chownToAnotherUser(squat);
        assertThatThrownBy(() -> PrivateDirectory.verify(squat)).isInstanceOf(PrivateDirectory.InsecurePathException.class)
                .hasMessageContaining("uid 4242");
    }

    @Test
    void opensNoFileThroughALink() throws IOException {
        Path dir = PrivateDirectory.ensure(tmp.resolve("locks"));
        Path marker = tmp.resolve("marker-target");
        Files.createSymbolicLink(dir.resolve("uid-1.lock"), marker);
        assertThatThrownBy(() -> PrivateDirectory.open(dir.resolve("uid-1.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)).isInstanceOf(PrivateDirectory.InsecurePathException.class);
        assertThat(marker).doesNotExist();
        try (var ch = PrivateDirectory.open(dir.resolve("uid-2.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertThat(ch.isOpen()).isTrue();
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("uid-2.lock")))).isEqualTo("rw-------");
    }
}
