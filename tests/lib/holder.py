#!/usr/bin/env python3
"""Hold a block device in a way no /proc/PID/fd shows, until killed.

    holder.py HOW NODE

HOW is one of
  thread       a thread calls unshare(CLONE_FILES) and opens NODE read-only:
               the descriptor is only in /proc/PID/task/TID/fd
  map-shared   NODE is mapped MAP_SHARED (one page) and its descriptor closed
  map-private  the same with MAP_PRIVATE
  fd           a plain descriptor (for comparison)
Prints "ready PID TID" (TID: the thread holding it, or PID) once NODE is
held, then sleeps.  Exits 2 when it cannot hold it.
"""
import ctypes
import os
import sys
import threading
import time

CLONE_FILES = 0x400
PROT_READ = 1
MAP_SHARED, MAP_PRIVATE = 1, 2

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]


def ready(tid):
    print("ready %d %d" % (os.getpid(), tid), flush=True)


def fail(what):
    err = ctypes.get_errno()
    sys.stderr.write("holder.py: %s: %s\n" % (what, os.strerror(err)))
    os._exit(2)


def in_thread(node):
    if libc.unshare(CLONE_FILES) != 0:
        fail("unshare(CLONE_FILES)")
    os.open(node, os.O_RDONLY)
    ready(threading.get_native_id())
    while True:
        time.sleep(3600)


def main():
    how, node = sys.argv[1], sys.argv[2]
    if how == 'thread':
        threading.Thread(target=in_thread, args=(node,), daemon=True).start()
    elif how in ('map-shared', 'map-private'):
        fd = os.open(node, os.O_RDONLY)
        flags = MAP_SHARED if how == 'map-shared' else MAP_PRIVATE
        addr = libc.mmap(None, 4096, PROT_READ, flags, fd, 0)
        if addr is None or addr == ctypes.c_void_p(-1).value:
            fail("mmap")
        os.close(fd)
        ready(os.getpid())
    elif how == 'fd':
        os.open(node, os.O_RDONLY)
        ready(os.getpid())
    else:
        sys.exit("usage: holder.py thread|map-shared|map-private|fd NODE")
    while True:
        time.sleep(3600)


main()
