"""The child process that runs an embedded store's queries, so a query can be stopped by killing it.

pyoxigraph has no cancellation: an aggregate or ORDER BY over a cartesian product runs inside the
engine until it ends. `EmbeddedStore` therefore sends each query to this process and kills it at
the deadline. It is started as a script (`python store_worker.py`), imports only the standard
library and pyoxigraph (a restart after a kill costs little more than loading the store), and
speaks length-prefixed JSON frames on stdin/stdout:

- first frame from the parent: `{"files": [[path, media_type], ...], "location": str | null}`;
  answered by `{"ready": n_quads}` or `{"error": message}`;
- `{"op": "query", "sparql": text}` -> `{"kind": "select", "variables": [...], "rows": [[cell, ...]]}`,
  `{"kind": "ask", "boolean": b}`, `{"kind": "graph", "rows": [[s, p, o], ...]}` or `{"error": message}`;
  a cell is null (unbound), a string (IRI, `_:` blank node) or `[lexical, datatype IRI]` (a literal);
- `{"op": "exists", "iris": [...]}` -> `{"found": [...]}` (IRIs used as subject, predicate or object).

Results are plain values (never pickles): the parent trusts nothing that comes out of a query.
It exits when stdin closes or its parent process is gone. `StoreWorker` is the parent's end.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import struct
import subprocess
import sys
import threading
import time
import weakref
from typing import Any, BinaryIO

_HEADER = struct.Struct(">I")
PARENT_POLL_S = 0.5


def read_frame(stream: BinaryIO) -> Any | None:
    """The next JSON frame of `stream`, None at end of input."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    body = stream.read(size)
    if len(body) < size:
        return None
    return json.loads(body)


def encode_frame(message: Any) -> bytes:
    body = json.dumps(message).encode("ascii")  # \u escapes: lone surrogates survive the trip
    return _HEADER.pack(len(body)) + body


def term_cell(term: Any, ox: Any) -> Any:
    """A pyoxigraph term as plain JSON: null, an IRI or `_:` blank-node string, [lexical, datatype]."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    if isinstance(term, ox.Literal):
        return [term.value, term.datatype.value]
    return str(term)


def _query(store: Any, sparql: str, ox: Any) -> dict[str, Any]:
    result = store.query(sparql)
    if isinstance(result, ox.QueryBoolean):
        return {"kind": "ask", "boolean": bool(result)}
    if isinstance(result, ox.QueryTriples):
        rows = [[term_cell(t, ox) for t in (tr.subject, tr.predicate, tr.object)] for tr in result]
        return {"kind": "graph", "rows": rows}
    variables = [v.value for v in result.variables]
    rows = [[term_cell(solution[i], ox) for i in range(len(variables))] for solution in result]
    return {"kind": "select", "variables": variables, "rows": rows}


def _exists(store: Any, iris: list[str], ox: Any) -> dict[str, Any]:
    found = []
    for iri in iris:
        try:
            node = ox.NamedNode(iri)
        except ValueError:
            continue
        patterns = ((node, None, None, None), (None, node, None, None), (None, None, node, None))
        if any(next(iter(store.quads_for_pattern(*p)), None) is not None for p in patterns):
            found.append(iri)
    return {"found": found}


def _open(setup: dict[str, Any], ox: Any) -> Any:
    """The store the parent described: an on-disk location read-only, or files loaded into memory."""
    if setup.get("location"):
        return ox.Store.read_only(setup["location"])
    store = ox.Store()
    for path, media_type in setup.get("files", []):
        try:
            store.load(path=path, format=ox.RdfFormat.from_media_type(media_type))
        except SyntaxError as err:
            raise ValueError(f"{path}: invalid RDF: {err}") from None
    return store


def _exit_with_parent(parent: int) -> None:
    """Stop when the parent is gone, even in the middle of a query (the engine releases the GIL)."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(0)


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]  # no sibling shadows a module
    import pyoxigraph as ox

    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not corrupt the frames
    setup = read_frame(requests)
    if setup is None:
        return
    try:
        store = _open(setup, ox)
    except (OSError, ValueError) as err:
        replies.write(encode_frame({"error": str(err)}))
        replies.flush()
        return
    replies.write(encode_frame({"ready": len(store)}))
    replies.flush()
    while (request := read_frame(requests)) is not None:
        try:
            if request.get("op") == "exists":
                frame = encode_frame(_exists(store, list(request["iris"]), ox))
            else:
                frame = encode_frame(_query(store, str(request["sparql"]), ox))
        except Exception as err:  # noqa: BLE001 - every failure goes back as the query's error
            frame = encode_frame({"error": f"{type(err).__name__}: {err}"})
        replies.write(frame)
        replies.flush()


class WorkerExited(RuntimeError):
    """The worker process ended without answering (crash, out of memory, killed from outside)."""


def _stop(process: subprocess.Popen[bytes], grace_s: float) -> None:
    """Close the worker's input (it exits at end of input), then kill it if it is still busy."""
    if process.stdin is not None and not process.stdin.closed:
        with contextlib.suppress(OSError):  # a dead worker's pipe
            process.stdin.close()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


class StoreWorker:
    """The parent's handle on one worker process: send a request, wait for the reply until a deadline.

    Not thread-safe: the owner serialises calls. The process is started at construction and loads
    the store meanwhile; `wait_ready` (called by the first `call`) waits for the load without a limit.
    """

    def __init__(self, setup: dict[str, Any]):
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        self._finalizer = weakref.finalize(self, _stop, self.process, 0.0)
        self._ready = False
        self._send(setup)

    def _send(self, message: Any) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(encode_frame(message))
        except (BrokenPipeError, ValueError):
            raise WorkerExited(self._exit_note()) from None

    def _exit_note(self) -> str:
        code = self.process.poll()
        state = "is not answering" if code is None else f"exited with code {code}"
        return f"the embedded store's worker process {state} (its stderr shows why)"

    def _read(self, size: int, deadline: float | None) -> bytes:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        data = bytearray()
        while len(data) < size:
            if deadline is not None:
                left_ms = math.ceil((deadline - time.monotonic()) * 1000)
                if left_ms <= 0 or not poller.poll(left_ms):
                    raise TimeoutError("no reply before the deadline")
            chunk = os.read(fd, size - len(data))
            if not chunk:
                raise WorkerExited(self._exit_note())
            data += chunk
        return bytes(data)

    def _receive(self, deadline: float | None) -> Any:
        (size,) = _HEADER.unpack(self._read(_HEADER.size, deadline))
        return json.loads(self._read(size, deadline))

    def wait_ready(self) -> int:
        """The number of quads once the store is loaded; ValueError with the worker's message if it failed."""
        if not self._ready:
            reply = self._receive(None)
            if "error" in reply:
                raise ValueError(str(reply["error"]))
            self._ready = True
            self.quads = int(reply["ready"])
        return self.quads

    def call(self, request: dict[str, Any], timeout_s: float | None) -> dict[str, Any]:
        """The reply to `request`; TimeoutError when none came within `timeout_s` (the worker is then
        in an unknown state: kill it)."""
        self.wait_ready()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        self._send(request)
        return self._receive(deadline)

    def kill(self) -> None:
        """Stop the process now (a query is running in it)."""
        self._finalizer.detach()
        self.process.kill()
        _stop(self.process, 0.0)

    def close(self, grace_s: float = 2.0) -> None:
        """Let the process finish its current work and exit; kill it after `grace_s`."""
        self._finalizer.detach()
        _stop(self.process, grace_s)


if __name__ == "__main__":
    main()
