"""Runs one native call in a forked child and returns its result to the parent.

SystemC elaborates once per process, so every simulation runs in a child of its own. The child
is a fork of the caller: the user's callbacks (closures, lambdas) are simply there, nothing is
pickled on the way in. The result comes back through a pipe, pickled. The parent never
elaborates, so a session can run any number of simulations.

Ctrl-C: the terminal sends SIGINT to the whole process group; the child's native run stops
cleanly at its next check and returns what it measured. The parent keeps waiting for that
result (and forwards the signal, for a Jupyter kernel's interrupt, which reaches only the
parent). A second Ctrl-C in the parent ends the child and raises KeyboardInterrupt.

The child holds SIGINT blocked from the fork on: only the native run lets it through, while its
own handler is in place. So a SIGINT that arrives before the run starts stops the run at its
first check, and one that arrives after it (the terminal's and the parent's forwarded copy come
in pairs) stays pending until the child exits: it can never raise KeyboardInterrupt in the
child's Python code, where it used to lose the result while it was being pickled (ChildDied,
about one Ctrl-C in 36).
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
    # Blocked across the fork: the child starts with SIGINT held (see the module's docstring);
    # the parent lets it through again inside _read_all, where a Ctrl-C is handled.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child_main(write_fd, fn, args, kwargs)
    os.close(write_fd)
    with _live_lock:
        _live_children.add(pid)
    try:
        data = _read_all(read_fd, pid, mask)
        _, status = os.waitpid(pid, 0)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # already so unless _read_all never ran
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


def _read_all(fd, pid, mask):
    chunks = []
    interrupted = False
    unblocked = False
    while True:
        try:
            if not unblocked:  # a Ctrl-C held since the fork is raised here, and forwarded
                unblocked = True
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
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
