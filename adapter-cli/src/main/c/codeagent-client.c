/*
 * codeagent-client: hands one command line to the warm codeagent background process over a Unix socket
 * and behaves as the command would have: standard input on request, stdout and stderr as they come,
 * signals forwarded, the command's exit status.
 *
 * A JVM client would pay the JVM start the background process exists to avoid, and bash cannot open a
 * Unix socket; this is the smallest thing that can, built by ./codeagent when a C compiler is present.
 *
 *   codeagent-client SOCKET BUILD WAIT_MS N ARG1..ARGN FALLBACK...
 *
 * Until the background process has accepted the command (a connect and a handshake, each under a
 * timeout) nothing has been read from stdin and nothing printed, and the command starts only when the
 * client, having had the answer, says go; so on any failure before that the client replaces itself with
 * FALLBACK (the same command in a JVM of its own) after a one-line notice. WAIT_MS > 0 means
 * the process was just started: keep trying to connect for that long.
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
#include <sys/socket.h>
#include <sys/stat.h>
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

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--stale") == 0) {
        return stale(argc, argv);
    }
    if (argc < 6) {
        fprintf(stderr, "usage: codeagent-client SOCKET BUILD WAIT_MS N ARGS... FALLBACK...\n");
        return 2;
    }
    const char *socket_path = argv[1];
    const char *build = argv[2];
    long wait_ms = atol(argv[3]);
    int nargs = atoi(argv[4]);
    if (nargs < 0 || 5 + nargs >= argc) {
        fprintf(stderr, "codeagent-client: bad argument count\n");
        return 2;
    }
    fallback_argv = argv + 5 + nargs;
    const char *t = getenv("CODEAGENT_DAEMON_TIMEOUT_MS");
    long timeout_ms = t != NULL && atol(t) > 0 ? atol(t) : 3000;

    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(socket_path) >= sizeof addr.sun_path) fall_back("socket path too long");
    strcpy(addr.sun_path, socket_path);

    int fd = -1;
    long connect_deadline = now_ms() + wait_ms;
    for (;;) {
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) fall_back(strerror(errno));
        if (connect(fd, (struct sockaddr *) &addr, sizeof addr) == 0) break;
        int e = errno;
        close(fd);
        if ((e == ENOENT || e == ECONNREFUSED || e == EAGAIN) && now_ms() < connect_deadline) {
            usleep(5000);
            continue;
        }
        if (e == ECONNREFUSED && wait_ms == 0) {
            /* nobody listens: a crashed process left its socket; without it the next call starts one */
            unlink(socket_path);
        }
        fall_back(wait_ms > 0 && (e == ENOENT || e == ECONNREFUSED) ? "it did not start in time" : strerror(e));
    }

    /* the whole request in one write: handshake, working directory, environment, arguments; "go" is
       sent only after the answer, so a client that gave up waiting never has its command run twice */
    char hello[512];
    int hl = snprintf(hello, sizeof hello, "codeagent-cli/1 %s", build);
    put('H', hello, (size_t) hl);
    char cwd[8192];
    if (getcwd(cwd, sizeof cwd) == NULL) fall_back("cannot tell the working directory");
    put('D', cwd, strlen(cwd));
    for (char **e = environ; *e != NULL; e++) put('E', *e, strlen(*e));
    for (int i = 0; i < nargs; i++) put('A', argv[5 + i], strlen(argv[5 + i]));
    char flags = (char) ((isatty(0) && isatty(1)) ? 1 : 0);
    put('T', &flags, 1);

    signal(SIGPIPE, SIG_IGN);
    if (write_all(fd, req, req_len) < 0) fall_back(strerror(errno));
    free(req);

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
