/*
 * codeagent-client: hands one command line to the warm codeagent background process over a Unix socket
 * and behaves as the command would have: standard input on request, stdout and stderr as they come,
 * signals forwarded, the command's exit status.
 *
 * A JVM client would pay the JVM start the background process exists to avoid, and bash cannot open a
 * Unix socket; this is the smallest thing that can, built by ./codeagent when a C compiler is present.
 *
 *   codeagent-client SOCKET BUILD WAIT_MS LAUNCHER N ARG1..ARGN FALLBACK...
 *
 * Until the background process has accepted the command (a connect and a handshake, each under a
 * timeout) nothing has been read from stdin and nothing printed, and the command starts only when the
 * client, having had the answer, says go; so on any failure before that the client replaces itself with
 * FALLBACK (the same command in a JVM of its own) after a one-line notice. WAIT_MS > 0 means
 * the process was just started: keep trying to connect for that long. With WAIT_MS 0, a socket nobody
 * listens on (its process died) makes the client run LAUNCHER ARG1..ARGN again with CODEAGENT_DAEMON_START=1,
 * so that the launcher starts a new one; the client never removes a file (only the process holding the
 * socket's lock replaces it).
 *
 * The socket's directory must be this user's and closed to others, and the process answering must run as
 * this user (SO_PEERCRED), before anything (the environment holds secrets) is sent. The request carries
 * the caller's environment fingerprint (namespaces, credentials, control group, label, hard limits: see
 * CallerEnvironment.java, which computes the same text); a process started elsewhere refuses.
 *
 *   codeagent-client --ping SOCKET BUILD TIMEOUT_MS
 *
 * asks the process on SOCKET whether it is alive: exit 0 when it answers with BUILD, 3 when it answers
 * with another build, 1 when nothing (of this user) answers in time.
 *
 *   codeagent-client --environment        prints this process's environment fingerprint
 *   codeagent-client --private-dir DIR     exit 0 when DIR is this user's alone and no ancestor lets another
 *                                          user replace it (as PrivateDirectory.java checks); else one line, 1
 *
 * Wire format (both ways): one byte type, a 4-byte big-endian length, the payload. See CliProtocol.java.
 *
 *   codeagent-client --stale STAMP PATH...
 *
 * is the launcher's check whether the build is older than its sources, as `find PATH... -newer STAMP` would
 * say, without starting find: exit 0 when some file or directory under a PATH is newer than STAMP (or STAMP is
 * missing), 1 when none is, 2 when it cannot tell. Missing PATHs are skipped.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int sigpipe_fds[2];
static char **fallback_argv;

static long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void fall_back(const char *why) {
    if (why != NULL) {
        fprintf(stderr, "codeagent: background process unusable (%s); running in this process\n", why);
    }
    execvp(fallback_argv[0], fallback_argv);
    fprintf(stderr, "codeagent: cannot run %s: %s\n", fallback_argv[0], strerror(errno));
    _exit(1);
}

static void on_signal(int sig) {
    int saved = errno;
    unsigned char b = (unsigned char) sig;
    if (write(sigpipe_fds[1], &b, 1) < 0) { /* nothing to do in a handler */ }
    errno = saved;
}

/* a growable buffer for the request, sent in one write */
static char *req;
static size_t req_len, req_cap;

static void put(char type, const void *data, size_t len) {
    if (req_len + 5 + len > req_cap) {
        req_cap = (req_len + 5 + len) * 2;
        req = realloc(req, req_cap);
        if (req == NULL) { fall_back("out of memory"); }
    }
    req[req_len++] = type;
    uint32_t n = htonl((uint32_t) len);
    memcpy(req + req_len, &n, 4);
    req_len += 4;
    memcpy(req + req_len, data, len);
    req_len += len;
}

static int write_all(int fd, const char *p, size_t len) {
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        len -= (size_t) w;
    }
    return 0;
}

static int send_frame(int fd, char type, const void *data, uint32_t len) {
    char head[5];
    head[0] = type;
    uint32_t n = htonl(len);
    memcpy(head + 1, &n, 4);
    if (write_all(fd, head, 5) < 0) return -1;
    return len == 0 ? 0 : write_all(fd, data, len);
}

/* incoming frames are parsed from this buffer as bytes arrive */
static char in[1 << 17];
static size_t in_len;

static struct timespec stamp;

static int newer_than_stamp(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void) path;
    (void) type;
    (void) ftw;
    const struct timespec *m = &st->st_mtim;
    return m->tv_sec > stamp.tv_sec || (m->tv_sec == stamp.tv_sec && m->tv_nsec > stamp.tv_nsec);
}

static int stale(int argc, char **argv) {
    struct stat st;
    if (argc < 3 || stat(argv[2], &st) != 0) {
        return 0;
    }
    stamp = st.st_mtim;
    for (int i = 3; i < argc; i++) {
        if (lstat(argv[i], &st) != 0) {
            continue;
        }
        int r = nftw(argv[i], newer_than_stamp, 32, FTW_PHYS);
        if (r == 1) {
            return 0;
        }
        if (r < 0) {
            return 2;
        }
    }
    return 1;
}


/* ---- the environment fingerprint: the same text as CallerEnvironment.java ---- */

static char *fp;
static size_t fp_len, fp_cap;

static void fp_add(const char *s, size_t n) {
    if (fp_len + n + 1 > fp_cap) {
        fp_cap = (fp_len + n + 1) * 2 + 256;
        fp = realloc(fp, fp_cap);
        if (fp == NULL) { fprintf(stderr, "codeagent-client: out of memory\n"); exit(1); }
    }
    memcpy(fp + fp_len, s, n);
    fp_len += n;
    fp[fp_len] = 0;
}

static void fp_str(const char *s) { fp_add(s, strlen(s)); }

/* the whole file, NUL-terminated; NULL when unreadable */
static char *slurp(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (buf == NULL) { close(fd); return NULL; }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) { if (errno == EINTR) continue; free(buf); close(fd); return NULL; }
        if (r == 0) break;
        n += (size_t) r;
        if (n == cap) { cap *= 2; buf = realloc(buf, cap + 1); }
    }
    close(fd);
    buf[n] = 0;
    if (len != NULL) *len = n;
    return buf;
}

/* Java's String.strip(): no leading or trailing whitespace */
static void strip(char **start, size_t *len) {
    while (*len > 0 && ((unsigned char) (*start)[0] <= ' ')) { (*start)++; (*len)--; }
    while (*len > 0 && ((unsigned char) (*start)[*len - 1] <= ' ')) (*len)--;
}

static const char *environment(void) {
    static const char *ns[] = {"cgroup", "ipc", "mnt", "net", "pid", "user", "uts"};
    static const char *status_keys[] = {"Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                                        "NoNewPrivs", "Seccomp"};
    fp_len = 0;
    fp_str("");
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        char path[64], link[256];
        snprintf(path, sizeof path, "/proc/self/ns/%s", ns[i]);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n < 0) { link[0] = '-'; n = 1; }
        link[n] = 0;
        fp_str("ns."); fp_str(ns[i]); fp_str(" "); fp_str(link); fp_str("\n");
    }
    char *status = slurp("/proc/self/status", NULL);
    for (size_t k = 0; k < sizeof status_keys / sizeof status_keys[0]; k++) {
        const char *key = status_keys[k];
        size_t kl = strlen(key);
        fp_str(key); fp_str(" ");
        int found = 0;
        for (char *line = status; line != NULL && *line; ) {
            char *end = strchr(line, '\n');
            size_t ll = end ? (size_t) (end - line) : strlen(line);
            if (ll > kl && strncmp(line, key, kl) == 0 && line[kl] == ':') {
                char *v = line + kl + 1;
                size_t vl = ll - kl - 1;
                strip(&v, &vl);
                fp_add(v, vl);
                found = 1;
                break;
            }
            line = end ? end + 1 : NULL;
        }
        if (!found) fp_str("-");
        fp_str("\n");
    }
    free(status);
    fp_str("cgroup ");
    size_t cl = 0;
    char *cg = slurp("/proc/self/cgroup", &cl);
    if (cg == NULL || cl == 0) {
        fp_str("-");
    } else {
        while (cl > 0 && cg[cl - 1] == '\n') cg[--cl] = 0;
        for (size_t i = 0; i < cl; i++) if (cg[i] == '\n') cg[i] = ';';
        fp_add(cg, cl);
    }
    free(cg);
    fp_str("\n");
    fp_str("lsm ");
    size_t al = 0;
    char *attr = slurp("/proc/self/attr/current", &al);
    size_t w = 0;
    for (size_t i = 0; attr != NULL && i < al; i++) if (attr[i] != 0) attr[w++] = attr[i];
    char *a = attr;
    strip(&a, &w);
    if (a == NULL || w == 0) fp_str("-"); else fp_add(a, w);
    free(attr);
    fp_str("\n");
    /* "%-25s %-20s %-20s %-10s": the name and the hard limit, from fixed columns */
    char *limits = slurp("/proc/self/limits", NULL);
    int first = 1;
    for (char *line = limits; line != NULL && *line; first = 0) {
        char *end = strchr(line, '\n');
        size_t ll = end ? (size_t) (end - line) : strlen(line);
        if (!first && ll >= 67) {
            char *name = line; size_t nl = 25;
            strip(&name, &nl);
            char *hard = line + 47; size_t hl = 20;
            strip(&hard, &hl);
            fp_str("limit.");
            for (size_t i = 0; i < nl; i++) fp_add(name[i] == ' ' ? "_" : name + i, 1);
            fp_str(" ");
            fp_add(hard, hl);
            fp_str("\n");
        }
        line = end ? end + 1 : NULL;
    }
    free(limits);
    return fp;
}

/* ---- private directories: as PrivateDirectory.java ---- */

static int check_ancestors(const char *from, const char *target, uid_t me, int depth) {
    char path[PATH_MAX];
    if (depth > 16 || strlen(from) >= sizeof path) {
        fprintf(stderr, "codeagent: cannot check the directories on the way to %s\n", target);
        return -1;
    }
    strcpy(path, from);
    for (;;) {
        struct stat st;
        if (lstat(path, &st) != 0) {
            fprintf(stderr, "codeagent: cannot check %s (on the way to %s): %s\n", path, target, strerror(errno));
            return -1;
        }
        if (st.st_uid != 0 && st.st_uid != me) {
            fprintf(stderr, "codeagent: %s (on the way to %s) belongs to uid %u, another user\n", path, target,
                    (unsigned) st.st_uid);
            return -1;
        }
        if (S_ISLNK(st.st_mode)) {
            /* a link of root's or ours: follow it by checking what it names */
            char real[PATH_MAX];
            if (realpath(path, real) == NULL || check_ancestors(real, target, me, depth + 1) != 0) return -1;
        } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
            fprintf(stderr, "codeagent: %s (on the way to %s) is writable by others and not sticky\n", path, target);
            return -1;
        }
        if (strcmp(path, "/") == 0) return 0;
        char *slash = strrchr(path, '/');
        if (slash == path) slash[1] = 0; else *slash = 0;
    }
}

/* the directory itself: a real directory, ours, nothing for group or others */
static int own_private_dir(const char *dir, uid_t me) {
    struct stat st;
    if (lstat(dir, &st) != 0) return -1;
    return S_ISDIR(st.st_mode) && st.st_uid == me && (st.st_mode & 077) == 0 ? 0 : -1;
}

static int private_dir(const char *dir) {
    uid_t me = getuid();
    if (dir[0] != '/') {
        fprintf(stderr, "codeagent: %s is not an absolute path\n", dir);
        return 1;
    }
    if (own_private_dir(dir, me) != 0) {
        fprintf(stderr, "codeagent: %s is not a directory of uid %u's closed to everyone else (0700)\n", dir, (unsigned) me);
        return 1;
    }
    return check_ancestors(dir, dir, me, 0) == 0 ? 0 : 1;
}

/* connects to SOCKET; 0 and fd on success, else the errno; a peer of another uid is refused as EPERM */
static int connect_to(const char *socket_path, int *fd_out) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(socket_path) >= sizeof addr.sun_path) return ENAMETOOLONG;
    strcpy(addr.sun_path, socket_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    if (connect(fd, (struct sockaddr *) &addr, sizeof addr) != 0) {
        int e = errno;
        close(fd);
        return e;
    }
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cred.uid != getuid()) {
        close(fd);
        return EPERM;
    }
    *fd_out = fd;
    return 0;
}

static char *dir_of(const char *path) {
    char *d = strdup(path);
    if (d == NULL) return NULL;
    char *slash = strrchr(d, '/');
    if (slash == NULL) { free(d); return strdup("."); }
    if (slash == d) slash[1] = 0; else *slash = 0;
    return d;
}

static int ping(const char *socket_path, const char *build, long timeout_ms) {
    char *dir = dir_of(socket_path);
    if (dir == NULL || own_private_dir(dir, getuid()) != 0) return 1;
    free(dir);
    int fd;
    if (connect_to(socket_path, &fd) != 0) return 1;
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    signal(SIGPIPE, SIG_IGN);
    if (send_frame(fd, 'P', "", 0) < 0) { close(fd); return 1; }
    char buf[600];
    size_t n = 0;
    long deadline = now_ms() + timeout_ms;
    while (n < sizeof buf && now_ms() < deadline) {
        ssize_t r = read(fd, buf + n, sizeof buf - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t) r;
        if (n >= 5) {
            uint32_t len;
            memcpy(&len, buf + 1, 4);
            len = ntohl(len);
            if (buf[0] != 'p' || len > sizeof buf - 5) break;
            if (n >= 5 + len) {
                close(fd);
                return len == strlen(build) && memcmp(buf + 5, build, len) == 0 ? 0 : 3;
            }
        }
    }
    close(fd);
    return 1;
}

/* a refusal the process sent before closing, after our write failed: its one line, or NULL */
static const char *pending_refusal(int fd) {
    static char why[256];
    char buf[300];
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) return NULL;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 5 || buf[0] != 'x') return NULL;
    uint32_t len;
    memcpy(&len, buf + 1, 4);
    len = ntohl(len);
    size_t l = len < (uint32_t) (n - 5) ? len : (size_t) (n - 5);
    if (l > sizeof why - 1) l = sizeof why - 1;
    memcpy(why, buf + 5, l);
    why[l] = 0;
    return why;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--stale") == 0) {
        return stale(argc, argv);
    }
    if (argc >= 2 && strcmp(argv[1], "--environment") == 0) {
        fputs(environment(), stdout);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--private-dir") == 0) {
        return private_dir(argv[2]);
    }
    if (argc == 5 && strcmp(argv[1], "--ping") == 0) {
        return ping(argv[2], argv[3], atol(argv[4]) > 0 ? atol(argv[4]) : 3000);
    }
    if (argc < 7) {
        fprintf(stderr, "usage: codeagent-client SOCKET BUILD WAIT_MS LAUNCHER N ARGS... FALLBACK...\n");
        return 2;
    }
    const char *socket_path = argv[1];
    const char *build = argv[2];
    long wait_ms = atol(argv[3]);
    const char *launcher = argv[4];
    int nargs = atoi(argv[5]);
    if (nargs < 0 || 6 + nargs >= argc) {
        fprintf(stderr, "codeagent-client: bad argument count\n");
        return 2;
    }
    char **args = argv + 6;
    fallback_argv = argv + 6 + nargs;
    const char *t = getenv("CODEAGENT_DAEMON_TIMEOUT_MS");
    long timeout_ms = t != NULL && atol(t) > 0 ? atol(t) : 3000;

    /* nothing is sent (the environment holds secrets) unless the socket is in a directory of ours alone */
    char *dir = dir_of(socket_path);
    if (dir == NULL || own_private_dir(dir, getuid()) != 0) fall_back("its directory is not this user's alone (0700)");
    free(dir);

    int fd = -1;
    long connect_deadline = now_ms() + wait_ms;
    for (;;) {
        int e = connect_to(socket_path, &fd);
        if (e == 0) break;
        if ((e == ENOENT || e == ECONNREFUSED || e == EAGAIN) && now_ms() < connect_deadline) {
            usleep(5000);
            continue;
        }
        if ((e == ENOENT || e == ECONNREFUSED) && wait_ms == 0 && strcmp(launcher, "-") != 0) {
            /* nobody listens: its process died; the launcher starts another (it holds no lock, so one can) */
            char **again = calloc((size_t) nargs + 2, sizeof *again);
            if (again != NULL) {
                again[0] = (char *) launcher;
                for (int i = 0; i < nargs; i++) again[1 + i] = args[i];
                setenv("CODEAGENT_DAEMON_START", "1", 1);
                execv(launcher, again);
            }
        }
        if (e == EPERM) fall_back("the process on its socket runs as another user");
        fall_back(wait_ms > 0 && (e == ENOENT || e == ECONNREFUSED) ? "it did not start in time" : strerror(e));
    }

    /* the whole request in one write: handshake, working directory, environment, arguments; "go" is
       sent only after the answer, so a client that gave up waiting never has its command run twice */
    char hello[512];
    int hl = snprintf(hello, sizeof hello, "codeagent-cli/2 %s", build);
    put('H', hello, (size_t) hl);
    const char *env_print = environment();
    put('V', env_print, strlen(env_print));
    char cwd[8192];
    if (getcwd(cwd, sizeof cwd) == NULL) fall_back("cannot tell the working directory");
    put('D', cwd, strlen(cwd));
    for (char **e = environ; *e != NULL; e++) put('E', *e, strlen(*e));
    for (int i = 0; i < nargs; i++) put('A', args[i], strlen(args[i]));
    /* 1: a person watches a terminal (live progress); 2: stdin is a terminal (never read whole up front) */
    char flags = (char) (((isatty(0) && isatty(1)) ? 1 : 0) | (isatty(0) ? 2 : 0));
    put('T', &flags, 1);

    signal(SIGPIPE, SIG_IGN);
    /* a process that stopped reading must not hold the command up: the request is written within the timeout */
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (write_all(fd, req, req_len) < 0) {
        int e = errno;
        const char *why = pending_refusal(fd);
        fall_back(why != NULL ? why : e == EAGAIN ? "no answer within the timeout" : strerror(e));
    }
    free(req);
    struct timeval forever = {0, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &forever, sizeof forever);

    if (pipe2(sigpipe_fds, O_CLOEXEC | O_NONBLOCK) < 0) fall_back(strerror(errno));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    int accepted = 0;               /* the handshake answer came: no falling back from here on */
    long handshake_deadline = now_ms() + timeout_ms;
    long stdin_wanted = 0;          /* bytes the command asked for and has not had yet */
    int stdin_eof = 0;
    int signalled = 0;
    long signal_deadline = 0;
    for (;;) {
        struct pollfd p[3];
        int np = 0;
        p[np].fd = fd; p[np].events = POLLIN; np++;
        p[np].fd = sigpipe_fds[0]; p[np].events = POLLIN; np++;
        if (stdin_wanted > 0) { p[np].fd = 0; p[np].events = POLLIN; np++; }
        long wait = -1;
        if (!accepted) wait = handshake_deadline - now_ms();
        if (signalled) wait = signal_deadline - now_ms();
        if (wait != -1 && wait < 0) wait = 0;
        int r = poll(p, (nfds_t) np, (int) wait);
        if (r < 0) {
            if (errno == EINTR) continue;
            if (!accepted) fall_back(strerror(errno));
            return 1;
        }
        if (r == 0) {
            if (!accepted) fall_back("no answer within the timeout");
            /* the command did not end after the signal: end as an interrupted command would */
            return 128 + signalled;
        }
        if (p[1].revents & POLLIN) {
            unsigned char s;
            while (read(sigpipe_fds[0], &s, 1) == 1) {
                if (!accepted) {
                    /* nothing has run yet: stop as the signal would have stopped us */
                    signal((int) s, SIG_DFL);
                    raise((int) s);
                    return 128 + s;
                }
                if (signalled) return 128 + signalled;  /* a second signal: stop waiting */
                signalled = s;
                signal_deadline = now_ms() + 6000;
                uint32_t be = htonl((uint32_t) s);
                if (send_frame(fd, 'S', &be, 4) < 0) return 128 + s;
            }
        }
        if (np == 3 && (p[2].revents & (POLLIN | POLLHUP | POLLERR))) {
            char buf[65536];
            size_t want = stdin_wanted < (long) sizeof buf ? (size_t) stdin_wanted : sizeof buf;
            ssize_t n = read(0, buf, want);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                stdin_eof = 1;
                n = 0;
            }
            stdin_wanted = 0;
            if (send_frame(fd, 'I', buf, (uint32_t) n) < 0) return 1;
        }
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(fd, in + in_len, sizeof in - in_len);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                if (!accepted) fall_back("it closed the connection");
                if (signalled) return 128 + signalled;
                fprintf(stderr, "codeagent: the background process stopped during the command\n");
                return 1;
            }
            in_len += (size_t) n;
            size_t off = 0;
            while (in_len - off >= 5) {
                uint32_t len;
                memcpy(&len, in + off + 1, 4);
                len = ntohl(len);
                if (len > sizeof in - 5) {
                    fprintf(stderr, "codeagent: bad frame from the background process\n");
                    return 1;
                }
                if (in_len - off < 5 + len) break;
                char type = in[off];
                char *data = in + off + 5;
                switch (type) {
                    case 'h':
                        accepted = 1;
                        if (send_frame(fd, 'G', "", 0) < 0) fall_back("it closed the connection");
                        break;
                    case 'x': {
                        if (accepted) return 1;
                        char why[256];
                        size_t l = len < sizeof why - 1 ? len : sizeof why - 1;
                        memcpy(why, data, l);
                        why[l] = 0;
                        fall_back(why);
                        break;
                    }
                    case 'O':
                        write_all(1, data, len);
                        break;
                    case 'R':
                        write_all(2, data, len);
                        break;
                    case 'N': {
                        uint32_t want;
                        memcpy(&want, data, 4);
                        want = ntohl(want);
                        if (stdin_eof) {
                            if (send_frame(fd, 'I', "", 0) < 0) return 1;
                        } else {
                            stdin_wanted = want;
                        }
                        break;
                    }
                    case 'X': {
                        uint32_t status;
                        memcpy(&status, data, 4);
                        status = ntohl(status);
                        /* a forwarded signal ends the command as the signal ends the JVM: 128+N */
                        return signalled ? 128 + signalled : (int) status;
                    }
                    default:
                        break;
                }
                off += 5 + len;
            }
            memmove(in, in + off, in_len - off);
            in_len -= off;
        }
    }
}
