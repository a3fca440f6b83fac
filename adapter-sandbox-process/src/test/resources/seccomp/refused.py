# Each call the seccomp policy refuses, made once; prints "name outcome" where outcome is the errno's
# name or "allowed". Run with and without the filter: the difference is the filter's doing.
import ctypes, errno, fcntl, os, socket, termios

libc = ctypes.CDLL(None, use_errno=True)


def raw(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return "allowed" if r >= 0 else errno.errorcode[ctypes.get_errno()]


def call(f):
    try:
        f()
        return "allowed"
    except OSError as e:
        return errno.errorcode[e.errno]


# buffers the kernel may write into stay referenced until the end
pair = (ctypes.c_int * 2)()
params = ctypes.create_string_buffer(120)
log = ctypes.create_string_buffer(64)
out = {
    "vsock": call(lambda: socket.socket(40, socket.SOCK_STREAM).close()),
    "netlink": call(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 15).close()),
    "packet": call(lambda: socket.socket(17, socket.SOCK_RAW, 0).close()),
    "socketpair_vsock": raw(53, 40, 1, 0, ctypes.addressof(pair)),
    "unshare_user": raw(272, 0x10000000),
    "unshare_net": raw(272, 0x40000000),
    "clone_newuser": raw(56, 0x10000000 | 17, 0, 0, 0, 0),
    "clone3": raw(435, 0, 0),
    "io_uring_setup": raw(425, 8, ctypes.addressof(params)),
    "keyctl": raw(250, 0, -3, 0),
    "add_key": raw(248, 0, 0, 0, 0, 0),
    "ptrace": raw(101, 0x4206, 1, 0, 0),
    "process_vm_readv": raw(310, 1, 0, 0, 0, 0, 0),
    "userfaultfd": raw(323, 0),
    "perf_event_open": raw(298, 0, 0, -1, -1, 0),
    "bpf": raw(321, 0, 0, 0),
    "mount": raw(165, 0, 0, 0, 0, 0),
    "setns": raw(308, 0, 0),
    "personality_no_aslr": raw(135, 0x0040000),
    "tiocsti": call(lambda: fcntl.ioctl(0, termios.TIOCSTI, b"x")),
    "syslog": raw(103, 3, ctypes.addressof(log), 64),
}
for k, v in out.items():
    print(k, v)
