/*
 * The process tier's in-sandbox supervisor (see Supervisor.java, WarmPool.java and Launcher.java): bubblewrap
 * runs it with --as-pid-1 as the sandbox's init, as the run's uid, in its empty tmpfs /work, under the seccomp
 * filter, in the run's control group. Cold runs get the job at once, pre-started (warm) ones block on stdin
 * for it. The job is the supervisor wire format both tiers share
 * (dev.codeagent.kit.sandbox.SupervisorJob: "<bytes>\n" and one JSON object with files, argv, env,
 * rlimits and this tier's nonce); it reads no byte past it: the program's stdin follows on the same pipe.
 * It writes the files into the tmpfs (nothing of the program's is on the host's disk), forks; the child lowers
 * its rlimits and execve()s the interpreter; the supervisor waits for it, reaping the orphans that come to
 * pid 1 meanwhile, kills and reaps whatever is left, and writes the program's real wait status to stderr
 * behind a marker made from the nonce, after every other writer of that pipe is dead.
 *
 * Why pid 1 and non-dumpable: the program has the supervisor's uid. The kernel drops signals from inside the
 * namespace to an init that has no handler for them (this one installs none), so the program cannot kill or
 * stop it; non-dumpable, and started from an execute-only file, the program cannot read its memory (the
 * nonce) or fds through /proc, and the seccomp filter refuses ptrace and process_vm_*. A supervisor that
 * cannot be both refuses to run the program once a job arrives, so the host hears why.
 * Anything going wrong before the program starts is reported as "codeagent-boot: ..", exit status 125; a
 * program that cannot be started, as "codeagent-boot: cannot start the program: ..", exit status 127.
 *
 * It is C, not Python, because it runs once per execution: a Python supervisor cost as much CPU as the
 * program's own interpreter start. The JSON reader below reads what Jackson writes (and all of RFC 8259 that
 * a job can hold); a job it cannot read is refused, never guessed at.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_HEADER 24
#define MAX_JOB (256L * 1024 * 1024)

static void fail(const char *fmt, ...) {
    char m[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m, sizeof m - 1, fmt, ap);
    va_end(ap);
    if (n < 0) {
        n = 0;
    }
    if (n > (int) sizeof m - 2) {
        n = sizeof m - 2;
    }
    m[n++] = '\n';
    char line[1100];
    memcpy(line, "codeagent-boot: ", 16);
    memcpy(line + 16, m, (size_t) n);
    (void) !write(2, line, (size_t) n + 16);
    _exit(125);
}

/* Reads exactly n bytes of stdin; at its end, nobody will send a job (the sandbox is being discarded). */
static void read_fully(char *b, size_t n) {
    while (n > 0) {
        ssize_t r = read(0, b, n);
        if (r == 0) {
            _exit(0);
        }
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            fail("cannot read the job: %s", strerror(errno));
        }
        b += r;
        n -= (size_t) r;
    }
}

/* ---- the JSON reader: one pass over the job, strings kept with their lengths (files may hold NULs) ---- */

typedef struct {
    char *s;
    size_t n;
} str;

typedef struct {
    const char *p;
    const char *end;
} cursor;

static void ws(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) {
        c->p++;
    }
}

static void expect(cursor *c, char ch) {
    ws(c);
    if (c->p >= c->end || *c->p != ch) {
        fail("bad job: expected '%c'", ch);
    }
    c->p++;
}

static int peek(cursor *c, char ch) {
    ws(c);
    return c->p < c->end && *c->p == ch;
}

static int hex4(cursor *c) {
    if (c->end - c->p < 4) {
        fail("bad job: short \\u escape");
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char h = *c->p++;
        v <<= 4;
        if (h >= '0' && h <= '9') {
            v |= h - '0';
        } else if (h >= 'a' && h <= 'f') {
            v |= h - 'a' + 10;
        } else if (h >= 'A' && h <= 'F') {
            v |= h - 'A' + 10;
        } else {
            fail("bad job: bad \\u escape");
        }
    }
    return v;
}

static size_t put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) {
        o[0] = (char) cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char) (0xC0 | cp >> 6);
        o[1] = (char) (0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char) (0xE0 | cp >> 12);
        o[1] = (char) (0x80 | (cp >> 6 & 0x3F));
        o[2] = (char) (0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char) (0xF0 | cp >> 18);
    o[1] = (char) (0x80 | (cp >> 12 & 0x3F));
    o[2] = (char) (0x80 | (cp >> 6 & 0x3F));
    o[3] = (char) (0x80 | (cp & 0x3F));
    return 4;
}

/*
 * A string, decoded into a fresh NUL-terminated buffer. A lone surrogate becomes U+FFFD (the Python supervisor
 * wrote '?', Java's own encoder the same replacement): the file holds what Java would have written.
 */
static str string(cursor *c) {
    expect(c, '"');
    const char *q = c->p;
    while (q < c->end && *q != '"') {
        if (*q == '\\') {
            q++;
        }
        q++;
    }
    if (q >= c->end) {
        fail("bad job: unterminated string");
    }
    /* every escape decodes to at most 4 bytes for its at-least-2 (or 12 for a pair) input bytes */
    char *o = malloc((size_t) (q - c->p) * 2 + 1);
    if (o == NULL) {
        fail("out of memory reading the job");
    }
    size_t n = 0;
    while (*c->p != '"') {
        char ch = *c->p++;
        if ((unsigned char) ch < 0x20) {
            fail("bad job: control character in a string");
        }
        if (ch != '\\') {
            o[n++] = ch;
            continue;
        }
        char e = *c->p++;
        switch (e) {
            case '"': o[n++] = '"'; break;
            case '\\': o[n++] = '\\'; break;
            case '/': o[n++] = '/'; break;
            case 'b': o[n++] = '\b'; break;
            case 'f': o[n++] = '\f'; break;
            case 'n': o[n++] = '\n'; break;
            case 'r': o[n++] = '\r'; break;
            case 't': o[n++] = '\t'; break;
            case 'u': {
                unsigned cp = (unsigned) hex4(c);
                if (cp >= 0xD800 && cp < 0xDC00) {
                    const char *save = c->p;
                    if (c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u') {
                        c->p += 2;
                        unsigned lo = (unsigned) hex4(c);
                        if (lo >= 0xDC00 && lo < 0xE000) {
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        } else {
                            c->p = save;
                            cp = 0xFFFD;
                        }
                    } else {
                        cp = 0xFFFD;
                    }
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    cp = 0xFFFD;
                }
                n += put_utf8(o + n, cp);
                break;
            }
            default:
                fail("bad job: bad escape \\%c", e);
        }
    }
    c->p++;
    o[n] = 0;
    return (str) {o, n};
}

static long long integer(cursor *c) {
    ws(c);
    int neg = 0;
    if (c->p < c->end && *c->p == '-') {
        neg = 1;
        c->p++;
    }
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') {
        fail("bad job: expected a whole number");
    }
    unsigned long long v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned d = (unsigned) (*c->p++ - '0');
        if (v > (0x7FFFFFFFFFFFFFFFULL - d) / 10) {
            fail("bad job: number out of range");
        }
        v = v * 10 + d;
    }
    if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E')) {
        fail("bad job: expected a whole number");
    }
    return neg ? -(long long) v : (long long) v;
}

static void skip_value(cursor *c, int depth);

static void skip_container(cursor *c, char open, char close, int depth) {
    expect(c, open);
    if (peek(c, close)) {
        c->p++;
        return;
    }
    while (1) {
        if (open == '{') {
            free(string(c).s);
            expect(c, ':');
        }
        skip_value(c, depth + 1);
        if (peek(c, ',')) {
            c->p++;
            continue;
        }
        expect(c, close);
        return;
    }
}

/* A value of a key this supervisor does not read (another tier's), checked for form and dropped. */
static void skip_value(cursor *c, int depth) {
    if (depth > 64) {
        fail("bad job: nested too deeply");
    }
    ws(c);
    if (c->p >= c->end) {
        fail("bad job: value expected");
    }
    switch (*c->p) {
        case '"': free(string(c).s); return;
        case '{': skip_container(c, '{', '}', depth); return;
        case '[': skip_container(c, '[', ']', depth); return;
        default: break;
    }
    static const char *words[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t l = strlen(words[i]);
        if ((size_t) (c->end - c->p) >= l && memcmp(c->p, words[i], l) == 0) {
            c->p += l;
            return;
        }
    }
    /* a number, fractions and exponents included */
    const char *start = c->p;
    while (c->p < c->end && strchr("+-0123456789.eE", *c->p) != NULL && *c->p != 0) {
        c->p++;
    }
    if (c->p == start) {
        fail("bad job: unexpected '%c'", *c->p);
    }
}

typedef struct {
    str *keys;
    str *values;
    size_t n;
} pairs;

static void add_pair(pairs *ps, str k, str v) {
    ps->keys = realloc(ps->keys, (ps->n + 1) * sizeof(str));
    ps->values = realloc(ps->values, (ps->n + 1) * sizeof(str));
    if (ps->keys == NULL || ps->values == NULL) {
        fail("out of memory reading the job");
    }
    ps->keys[ps->n] = k;
    ps->values[ps->n] = v;
    ps->n++;
}

static pairs string_map(cursor *c) {
    pairs ps = {NULL, NULL, 0};
    expect(c, '{');
    if (peek(c, '}')) {
        c->p++;
        return ps;
    }
    while (1) {
        str k = string(c);
        expect(c, ':');
        add_pair(&ps, k, string(c));
        if (peek(c, ',')) {
            c->p++;
            continue;
        }
        expect(c, '}');
        return ps;
    }
}

static char **string_array(cursor *c, size_t *count) {
    size_t n = 0;
    char **a = malloc(sizeof(char *));
    if (a == NULL) {
        fail("out of memory reading the job");
    }
    expect(c, '[');
    if (!peek(c, ']')) {
        while (1) {
            str s = string(c);
            if (strlen(s.s) != s.n) {
                fail("bad job: NUL in an argument");
            }
            a = realloc(a, (n + 2) * sizeof(char *));
            if (a == NULL) {
                fail("out of memory reading the job");
            }
            a[n++] = s.s;
            if (peek(c, ',')) {
                c->p++;
                continue;
            }
            break;
        }
    }
    expect(c, ']');
    a[n] = NULL;
    *count = n;
    return a;
}

typedef struct {
    int resource;
    rlim_t soft;
    rlim_t hard;
} limit;

static const struct {
    const char *name;
    int resource;
} RLIMITS[] = {
    {"RLIMIT_CPU", RLIMIT_CPU}, {"RLIMIT_FSIZE", RLIMIT_FSIZE}, {"RLIMIT_DATA", RLIMIT_DATA},
    {"RLIMIT_STACK", RLIMIT_STACK}, {"RLIMIT_CORE", RLIMIT_CORE}, {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_NPROC", RLIMIT_NPROC}, {"RLIMIT_NOFILE", RLIMIT_NOFILE}, {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
    {"RLIMIT_AS", RLIMIT_AS}, {"RLIMIT_LOCKS", RLIMIT_LOCKS}, {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
    {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE}, {"RLIMIT_NICE", RLIMIT_NICE}, {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},
    {"RLIMIT_RTTIME", RLIMIT_RTTIME},
};

static rlim_t rlim(long long v) {
    /* Python's resource module reads -1 as RLIM_INFINITY; so does this */
    if (v == -1) {
        return RLIM_INFINITY;
    }
    if (v < 0) {
        fail("bad job: negative rlimit %lld", v);
    }
    return (rlim_t) v;
}

static limit *rlimits(cursor *c, size_t *count) {
    size_t n = 0;
    limit *ls = malloc(sizeof(limit));
    if (ls == NULL) {
        fail("out of memory reading the job");
    }
    expect(c, '{');
    if (!peek(c, '}')) {
        while (1) {
            str name = string(c);
            int res = -1;
            for (size_t i = 0; i < sizeof RLIMITS / sizeof RLIMITS[0]; i++) {
                if (strcmp(RLIMITS[i].name, name.s) == 0 && strlen(name.s) == name.n) {
                    res = RLIMITS[i].resource;
                }
            }
            if (res < 0) {
                fail("bad job: unknown rlimit %s", name.s);
            }
            free(name.s);
            expect(c, ':');
            expect(c, '[');
            rlim_t soft = rlim(integer(c));
            expect(c, ',');
            rlim_t hard = rlim(integer(c));
            expect(c, ']');
            ls = realloc(ls, (n + 1) * sizeof(limit));
            if (ls == NULL) {
                fail("out of memory reading the job");
            }
            ls[n++] = (limit) {res, soft, hard};
            if (peek(c, ',')) {
                c->p++;
                continue;
            }
            break;
        }
    }
    expect(c, '}');
    *count = n;
    return ls;
}

typedef struct {
    pairs files;
    pairs binary;
    char **argv;
    size_t argc;
    char **env;
    limit *limits;
    size_t nlimits;
    str nonce;
    int have_files, have_argv, have_env, have_rlimits, have_nonce;
} job;

static job parse(const char *text, size_t n) {
    job j;
    memset(&j, 0, sizeof j);
    cursor c = {text, text + n};
    expect(&c, '{');
    if (!peek(&c, '}')) {
        while (1) {
            str k = string(&c);
            expect(&c, ':');
            if (strcmp(k.s, "files") == 0) {
                j.files = string_map(&c);
                j.have_files = 1;
            } else if (strcmp(k.s, "binary") == 0) {
                j.binary = string_map(&c);
            } else if (strcmp(k.s, "argv") == 0) {
                j.argv = string_array(&c, &j.argc);
                j.have_argv = 1;
            } else if (strcmp(k.s, "env") == 0) {
                pairs e = string_map(&c);
                j.env = malloc((e.n + 1) * sizeof(char *));
                if (j.env == NULL) {
                    fail("out of memory reading the job");
                }
                for (size_t i = 0; i < e.n; i++) {
                    if (strlen(e.keys[i].s) != e.keys[i].n || strlen(e.values[i].s) != e.values[i].n
                            || e.keys[i].n == 0 || strchr(e.keys[i].s, '=') != NULL) {
                        fail("bad job: bad environment variable");
                    }
                    if (asprintf(&j.env[i], "%s=%s", e.keys[i].s, e.values[i].s) < 0) {
                        fail("out of memory reading the job");
                    }
                }
                j.env[e.n] = NULL;
                j.have_env = 1;
            } else if (strcmp(k.s, "rlimits") == 0) {
                j.limits = rlimits(&c, &j.nlimits);
                j.have_rlimits = 1;
            } else if (strcmp(k.s, "nonce") == 0) {
                j.nonce = string(&c);
                j.have_nonce = 1;
            } else {
                skip_value(&c, 0);
            }
            free(k.s);
            if (peek(&c, ',')) {
                c.p++;
                continue;
            }
            break;
        }
    }
    expect(&c, '}');
    ws(&c);
    if (c.p != c.end) {
        fail("bad job: extra data after the job");
    }
    if (!(j.have_files && j.have_argv && j.have_env && j.have_rlimits && j.have_nonce) || j.argc == 0) {
        fail("bad job: files, argv (not empty), env, rlimits and nonce are required");
    }
    for (size_t i = 0; i < j.nonce.n; i++) {
        char ch = j.nonce.s[i];
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) {
            fail("bad job: the nonce is not alphanumeric");
        }
    }
    return j;
}

static void write_all(int fd, const char *b, size_t n, const char *what) {
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            fail("cannot write %s: %s", what, strerror(errno));
        }
        b += w;
        n -= (size_t) w;
    }
}

/* Standard base64 (RFC 4648, padding optional) decoded in place: the bytes are never longer than the text. */
static void base64_decode(str *v, const char *name) {
    size_t out = 0;
    unsigned acc = 0;
    int bits = 0;
    size_t i = 0;
    for (; i < v->n && v->s[i] != '='; i++) {
        unsigned char ch = (unsigned char) v->s[i];
        int d = ch >= 'A' && ch <= 'Z' ? ch - 'A' : ch >= 'a' && ch <= 'z' ? ch - 'a' + 26
                : ch >= '0' && ch <= '9' ? ch - '0' + 52 : ch == '+' ? 62 : ch == '/' ? 63 : -1;
        if (d < 0) {
            fail("bad job: the content of %s is not base64", name);
        }
        acc = (acc << 6) | (unsigned) d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            v->s[out++] = (char) ((acc >> bits) & 0xff);
        }
    }
    for (; i < v->n; i++) {
        if (v->s[i] != '=') {
            fail("bad job: the content of %s is not base64", name);
        }
    }
    v->n = out;
}

static void write_files(const pairs *files) {
    for (size_t i = 0; i < files->n; i++) {
        char *name = files->keys[i].s;
        if (strlen(name) != files->keys[i].n || name[0] == 0) {
            fail("bad job: bad file name");
        }
        for (char *slash = strchr(name, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
            *slash = 0;
            if (slash != name && mkdir(name, 0755) != 0 && errno != EEXIST) {
                fail("cannot make the directory %s: %s", name, strerror(errno));
            }
            *slash = '/';
        }
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
            fail("cannot write %s: %s", name, strerror(errno));
        }
        write_all(fd, files->values[i].s, files->values[i].n, name);
        close(fd);
        /* the supervisor's memory is charged to the run: its copy of the files is not kept */
        free(files->values[i].s);
    }
}

/* Every other process of the sandbox, killed and reaped until none is left (orphans come to pid 1). */
static void sweep(void) {
    while (1) {
        kill(-1, SIGKILL);
        if (wait(NULL) < 0 && errno == ECHILD) {
            return;
        }
    }
}

int main(void) {
    const char *problem = NULL;
    char why[128];
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        snprintf(why, sizeof why, "prctl(PR_SET_DUMPABLE) failed with errno %d", errno);
        problem = why;
    }
    if (getpid() != 1) {
        snprintf(why, sizeof why, "the supervisor is pid %d, not the sandbox init", (int) getpid());
        problem = why;
    }

    char header[MAX_HEADER + 1];
    size_t h = 0;
    do {
        if (h >= MAX_HEADER) {
            fail("bad job header");
        }
        read_fully(header + h, 1);
    } while (header[h++] != '\n');
    header[h - 1] = 0;
    if (problem != NULL) {
        fail("%s", problem);
    }
    char *digits_end;
    errno = 0;
    long size = strtol(header, &digits_end, 10);
    if (h < 2 || *digits_end != 0 || errno != 0 || size <= 0 || size > MAX_JOB || header[0] < '0' || header[0] > '9') {
        fail("bad job header");
    }
    char *text = malloc((size_t) size);
    if (text == NULL) {
        fail("out of memory reading the job");
    }
    read_fully(text, (size_t) size);
    job j = parse(text, (size_t) size);
    free(text);
    write_files(&j.files);
    for (size_t i = 0; i < j.binary.n; i++) {
        base64_decode(&j.binary.values[i], j.binary.keys[i].s);
    }
    write_files(&j.binary);

    pid_t pid = fork();
    if (pid < 0) {
        fail("cannot fork the program: %s", strerror(errno));
    }
    if (pid == 0) {
        /* the program starts with default dispositions and nothing blocked, whatever its launcher left */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int s = 1; s < NSIG; s++) {
            if (s != SIGKILL && s != SIGSTOP) {
                signal(s, SIG_DFL);
            }
        }
        /*
         * the program, not its supervisor, is the OOM killer's first choice. Non-dumpable, this child's /proc files
         * are root's and the write would fail: dumpable again first. Nothing else of the run exists yet to read
         * this process, and execve() sets dumpability anew anyway.
         */
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (oom >= 0) {
            (void) !write(oom, "1000", 4);
            close(oom);
        }
        for (size_t i = 0; i < j.nlimits; i++) {
            struct rlimit r = {j.limits[i].soft, j.limits[i].hard};
            if (setrlimit(j.limits[i].resource, &r) != 0) {
                dprintf(2, "codeagent-boot: cannot start the program: setrlimit: %s\n", strerror(errno));
                _exit(127);
            }
        }
        execve(j.argv[0], j.argv, j.env);
        dprintf(2, "codeagent-boot: cannot start the program: %s: %s\n", j.argv[0], strerror(errno));
        _exit(127);
    }

    char marker[160];
    int m = snprintf(marker, sizeof marker, "%ccodeagent:%.*s:", 0, (int) j.nonce.n, j.nonce.s);
    if (m < 0 || m >= (int) sizeof marker) {
        fail("bad job: the nonce is too long");
    }
    int status = 0;
    while (1) {
        pid_t q = waitpid(-1, &status, 0);
        if (q == pid) {
            break;
        }
        if (q < 0 && errno != EINTR) {
            fail("lost the program: %s", strerror(errno));
        }
    }
    sweep();
    char report[96];
    int r = WIFSIGNALED(status)
            ? snprintf(report, sizeof report, "{\"exit\": null, \"signal\": %d}\n", WTERMSIG(status))
            : snprintf(report, sizeof report, "{\"exit\": %d, \"signal\": null}\n", WEXITSTATUS(status));
    /* the pipe's file description is shared: the program may have left it non-blocking */
    int fl = fcntl(2, F_GETFL);
    if (fl >= 0) {
        fcntl(2, F_SETFL, fl & ~O_NONBLOCK);
    }
    char out[256];
    memcpy(out, marker, (size_t) m);
    memcpy(out + m, report, (size_t) r);
    write_all(2, out, (size_t) (m + r), "the report");
    _exit(0);
}
