"""Runs one native call in a forked child and returns its result to the parent.

SystemC elaborates once per process, so every simulation runs in a child of its own. The child
is a fork of the caller: the user's callbacks (closures, lambdas) are simply there, nothing is
pickled on the way in. The result comes back through a pipe, pickled. The parent never
elaborates, so a session can run any number of simulations.

Ctrl-C: the terminal sends SIGINT to the whole process group; the child's native run stops
cleanly at its next check and returns what it measured. The parent keeps waiting for that
result (and forwards the signal, for a Jupyter kernel's interrupt, which reaches only the
parent). A second Ctrl-C in the parent ends the child and raises KeyboardInterrupt.
"""

import os
import pickle
import signal
import sys
import threading

# Children alive now (a sweep interrupts them all on Ctrl-C).
_live_children = set()
_live_lock = threading.Lock()


class ChildDied(RuntimeError):
    """The simulation process ended without a result (a crash, or killed)."""


def interrupt_all():
    """Asks every running simulation to stop cleanly (SIGINT)."""
    with _live_lock:
        pids = list(_live_children)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:
            pass


def _child_main(write_fd, fn, args, kwargs):
    status = 0
    try:
        try:
            message = ("ok", fn(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001 - everything goes back to the parent
            message = ("error", _portable(e))
        try:
            data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # noqa: BLE001 - e.g. a callback returned something unpicklable
            data = pickle.dumps(("error", RuntimeError(f"the result cannot be sent back (pickle): {e}")))
        with os.fdopen(write_fd, "wb") as out:
            out.write(data)
    except BaseException:  # noqa: BLE001 - cannot even report: exit non-zero
        status = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)  # no atexit handlers, no SystemC teardown (see module.cpp)


def _portable(e):
    """The exception itself if it survives pickling, else a RuntimeError with its message."""
    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:  # noqa: BLE001
        return RuntimeError(f"{type(e).__name__}: {e}")


def call_in_child(fn, *args, **kwargs):
    """fn(*args, **kwargs) in a forked child; returns its result or raises its exception."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child_main(write_fd, fn, args, kwargs)
    os.close(write_fd)
    with _live_lock:
        _live_children.add(pid)
    try:
        data = _read_all(read_fd, pid)
        _, status = os.waitpid(pid, 0)
    finally:
        with _live_lock:
            _live_children.discard(pid)
        os.close(read_fd)
    if not data:
        how = f"signal {-os.waitstatus_to_exitcode(status)}" if os.WIFSIGNALED(status) else f"exit {os.waitstatus_to_exitcode(status)}"
        raise ChildDied(f"the simulation process ended without a result ({how})")
    kind, value = pickle.loads(data)
    if kind == "error":
        raise value
    return value


def _read_all(fd, pid):
    chunks = []
    interrupted = False
    while True:
        try:
            chunk = os.read(fd, 1 << 20)
        except KeyboardInterrupt:
            if interrupted:  # the second Ctrl-C: give up on the child
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise
            interrupted = True
            try:
                os.kill(pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
