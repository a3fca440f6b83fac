# An x32-ABI syscall (bit 30 set in the number) from an x86_64 process: getpid through the x32 table.
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(ctypes.c_long(0x40000000 | 39))
print("survived")
