/*
 * The first process of a process-tier run (see LaunchWrapper.java), on the host, as root:
 *
 *   launch SECCOMP_FILE UID PROCS_FILE... -- COMMAND...
 *
 * It writes its own pid into each of the run's cgroup.procs files, so the run is in its control groups before
 * a single instruction of the program exists and every descendant inherits them; opens SECCOMP_FILE ("" for
 * none) as fd 3, which bubblewrap is told to load (--seccomp 3) and closes before the program starts; drops to
 * UID (-1: stays) as setpriv --reuid=UID --regid=UID --clear-groups --no-new-privs would; and execs COMMAND.
 * Any failure before the exec is "codeagent-launch: ..." and exit status 125: the program never ran.
 *
 * It replaces `sh -c` plus setpriv, two program starts per run, with one: this runs once per execution.
 *
 * It forks first and the child does all of the above; the parent, still root, outside the run's groups, stays as
 * the run's reaper (PR_SET_CHILD_SUBREAPER): it reaps its child and every orphan of the run that comes to it, and
 * when none is left exits as its child did (its status, or 128 + its signal, which the JDK reports alike). Without
 * it the run's processes whose parent died first (a killed run's inner bubblewrap and supervisor) went to the
 * host's pid 1; where that is the JVM itself (a container without an init, `unshare -p -f`), nothing reaped them,
 * and their zombies counted against the pool uid's RLIMIT_NPROC until a later run of that uid could not fork. It
 * dies with the thread that started it (PR_SET_PDEATHSIG), as the bubblewrap below does with it.
 *
 *   launch --init PROCS_FILE...
 *
 * The init of a zygote's run (zygote.py spawns it as the first process of the run's pid namespace, then forks the
 * program into that namespace): joins the run's groups, as above, then only lives. Its children, which are the
 * orphans the program leaves, are reaped by the kernel (SIGCHLD ignored); it ends when its stdin, which the zygote
 * alone holds, reaches its end (the zygote closed it, or died); and the kernel then kills whatever of the run is left.
 * A Python init forked from the zygote cost a fork of the zygote's heap and hundreds of copied pages per run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define SETUP_FAILED 125
#define SECCOMP_FD 3

static void fail(const char *what, const char *arg) {
    char line[1024];
    int n = snprintf(line, sizeof line, "codeagent-launch: %s%s%s: %s\n", what, arg ? " " : "", arg ? arg : "",
                     strerror(errno));
    if (n > 0) {
        (void) !write(2, line, (size_t) (n < (int) sizeof line ? n : (int) sizeof line - 1));
    }
    _exit(SETUP_FAILED);
}

/* Arms SIGKILL on the parent's death, then checks the parent is still the one expected (it may have died before). */
static void die_with(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) {
        fail("prctl(PR_SET_PDEATHSIG)", NULL);
    }
}

/* Writes this process's pid into each cgroup.procs file of argv[from..] up to "--" or the end; the index after. */
static int join(int argc, char **argv, int from) {
    char pid[24];
    int pidlen = snprintf(pid, sizeof pid, "%d\n", (int) getpid());
    int i = from;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        int fd = open(argv[i], O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            fail("cannot open", argv[i]);
        }
        if (write(fd, pid, (size_t) pidlen) != pidlen) {
            fail("cannot join", argv[i]);
        }
        close(fd);
    }
    return i;
}

static int init(int argc, char **argv) {
    join(argc, argv, 2);
    if (signal(SIGCHLD, SIG_IGN) == SIG_ERR) {
        fail("signal(SIGCHLD)", NULL);
    }
    prctl(PR_SET_NAME, (unsigned long) "codeagent-init", 0, 0, 0);
    char buf[64];
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EINTR)) {
            _exit(0);
        }
    }
}

/* The parent's part: reaps until no child is left, then ends as the run's first process did. */
static void reap(pid_t first) {
    close(0);
    close(1);
    close(2);
    int status = 0;
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, 0);
        if (p == first) {
            status = st;
        } else if (p < 0 && errno != EINTR) {
            break;
        }
    }
    if (WIFSIGNALED(status)) {
        /* what the JDK reports for a death by signal too; raised again, a core signal would dump this root process */
        _exit(128 + WTERMSIG(status));
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : SETUP_FAILED);
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--init") == 0) {
        return init(argc, argv);
    }
    if (argc < 5) {
        errno = EINVAL;
        fail("usage: launch SECCOMP_FILE UID PROCS_FILE... -- COMMAND...", NULL);
    }
    die_with(getppid());
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        fail("prctl(PR_SET_CHILD_SUBREAPER)", NULL);
    }
    /* an ignored SIGCHLD would reap the children before waitpid could read the first one's status */
    if (signal(SIGCHLD, SIG_DFL) == SIG_ERR) {
        fail("signal(SIGCHLD)", NULL);
    }
    pid_t reaper = getpid();
    pid_t first = fork();
    if (first < 0) {
        fail("fork", NULL);
    }
    if (first > 0) {
        reap(first);
    }
    /* a fork clears it: armed at once, so a reaper killed from here on takes this child with it */
    die_with(reaper);
    const char *seccomp = argv[1];
    char *end;
    errno = 0;
    long uid = strtol(argv[2], &end, 10);
    if (*argv[2] == 0 || *end != 0 || errno != 0 || uid < -1 || uid > 0x7FFFFFFFL) {
        errno = EINVAL;
        fail("bad uid", argv[2]);
    }
    int i = join(argc, argv, 3);
    if (i >= argc - 1) {
        errno = EINVAL;
        fail("no command after --", NULL);
    }
    if (*seccomp != 0) {
        int fd = open(seccomp, O_RDONLY);
        if (fd < 0) {
            fail("cannot open", seccomp);
        }
        if (fd != SECCOMP_FD) {
            if (dup2(fd, SECCOMP_FD) < 0) {
                fail("cannot open the filter as fd 3:", seccomp);
            }
            close(fd);
        }
    }
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0) {
            fail("setgroups", NULL);
        }
        if (setresgid((gid_t) uid, (gid_t) uid, (gid_t) uid) != 0) {
            fail("setresgid", argv[2]);
        }
        if (setresuid((uid_t) uid, (uid_t) uid, (uid_t) uid) != 0) {
            fail("setresuid", argv[2]);
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
            fail("prctl(PR_SET_NO_NEW_PRIVS)", NULL);
        }
    }
    /* after the uid changed, which clears it: the run dies with its reaper, even one killed before this ran */
    die_with(reaper);
    execv(argv[i + 1], argv + i + 1);
    fail("cannot run", argv[i + 1]);
    return SETUP_FAILED;
}
