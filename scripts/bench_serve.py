"""Soak test of `nmt-sparql serve` on loopback: many concurrent requests, a share of them hostile.

The script builds a small random-initialised export (a 2-layer word Transformer with copy over
questions generated from the bundled KB), starts `python -m nmt_sparql.cli serve` on 127.0.0.1 with
the bundled KB, and sends `--requests` requests from `--concurrency` clients. Benign requests are
generated questions (a third of them with `execute: true`); a `--hostile` share cycles through:

  service_unit     the SERVICE «unit» of issue #13 pointing at a loopback listener   (expect 422)
  update_unit      `«DROP ALL»` as a unit, with execute                             (expect 422)
  update_question  "DELETE WHERE { ?s ?p ?o } ; DROP ALL" as a question, with execute (expect 200)
  huge_question    one question of 200,000 characters                               (expect 422)
  many_questions   10,000 questions in one request                                  (expect 422)
  malformed_json   a truncated JSON body                                            (expect 422)

It reports the status counts (no 5xx allowed), requests that reached the listener (none allowed),
p50/p95/max latency of benign and of all requests, and the resident memory (RSS) of the server
process after a warm-up and at the end (growth must stay under 10%); the KB worker process is
reported apart. Everything stays on 127.0.0.1; every loop is bounded by the request count.

Usage: python scripts/bench_serve.py --requests 2000 --concurrency 20 --hostile 0.01 --out results/serve.json

Throughput mode (`--throughput`, issue #19): questions/s and p50/p95 latency of benign one-question
requests (no execution) at each of `--clients` concurrent clients, for each `--quantize` setting of the
same export (`--export`, default the random one above), one server per setting started side by side
and measured in alternation, `--rounds` times:

    python scripts/bench_serve.py --throughput --export /tmp/final-export --clients 1 8 32 \
        --quantize none int8 --per-client 16 --rounds 2 --threads 1 --out results/serve_throughput.json

`--with EXPORT2 --with EXPORT3` adds, per quantize setting, a server of those exports answering together
(`serve model=[EXPORT,EXPORT2,EXPORT3]`, serving/ensemble.py) beside the one of `--export` alone; every
request then asks for answers (`execute: true`, or `repair: true` with `--repair`), which the vote needs,
so the two are compared on the same work. `--questions-file` draws the questions from a JSONL set
(`question` fields, e.g. benchmarks/natural_questions_heldout31.jsonl) instead of generated ones.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import psutil
import torch
from eval_translate import read_questions
from omegaconf import OmegaConf

from nmt_sparql.annotation.annotator import Annotator
from nmt_sparql.annotation.linking.build import build_index
from nmt_sparql.annotation.linking.linker import Linker
from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.data.generate import bundled_kb_path, generate, load_store
from nmt_sparql.inference.tokenizer import build_tokenizer
from nmt_sparql.models.registry import build_model
from nmt_sparql.preparation.linking_index import INDEX_FILE
from nmt_sparql.serving.export import export_model
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import tokenize
from nmt_sparql.training.checkpoint import TrainState, save_checkpoint

MODEL = {"name": "transformer", "dim": 64, "ffn_dim": 128, "heads": 2, "encoder_layers": 2,
         "decoder_layers": 2, "dropout": 0.0, "max_slots": 8, "batch_size": 16}  # fmt: skip
DECODE = {"beam": 1, "n_best": 1, "max_len": 32, "batch_size": 32}
HOSTILE = (
    "service_unit",
    "update_unit",
    "update_question",
    "huge_question",
    "many_questions",
    "malformed_json",
)
MAX_RSS_GROWTH = 0.10


def make_export(root: Path, n_questions: int, seed: int = 0) -> tuple[Path, list[str]]:
    """A random-initialised tag-within copy model exported to `root/export`, and raw questions for it."""
    store = load_store(bundled_kb_path())
    examples = generate(store, "bundled", n_per_template=max(1, n_questions // 8), seed=seed)[:n_questions]
    run = root / "run"
    run.mkdir(parents=True, exist_ok=True)
    index = build_index(run / INDEX_FILE, prefix_map("bundled"), kb="embedded:bundled")
    annotator = Annotator("tag_within", Linker(index), seed)
    pairs = [(annotator.question(e.question), tokenize(e.query, "bundled")) for e in examples]
    index.close()
    torch.manual_seed(seed)
    tokenizer = build_tokenizer(MODEL, pairs, True, "bundled")
    tokenizer.save(run / "tokenizer")
    model = build_model(MODEL, tokenizer.spec, True)
    cfg = {"dataset": {"name": "bundled", "kb": "bundled"}, "model": MODEL, "copy": True,
           "annotation": "tag_within", "seed": seed, "decode": DECODE, "kb": "embedded:bundled"}  # fmt: skip
    (run / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(cfg)), encoding="utf-8")
    save_checkpoint(run / "best", model, TrainState())
    return export_model(run, root / "export"), [e.question for e in examples]


@contextmanager
def loopback_listener() -> Iterator[tuple[str, list[str]]]:
    """(URL, requests received) of an HTTP server on 127.0.0.1: hostile SERVICE payloads point at it."""
    received: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            received.append(f"{self.command} {self.path}")
            self.send_response(204)
            self.end_headers()

        do_GET = do_POST = _record

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/sparql", received
    finally:
        server.shutdown()
        server.server_close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_server(
    export: Path | list[Path],
    port: int,
    log: Path,
    kb_timeout_s: float,
    threads: int,
    overrides: tuple[str, ...] = (),
) -> Iterator[int]:
    """`nmt-sparql serve` in a child process on 127.0.0.1:port (several exports: together); yields its pid
    once /health answers."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    exports = f"[{','.join(map(str, export))}]" if isinstance(export, list) else str(export)
    command = [sys.executable, "-m", "nmt_sparql.cli", "serve", f"export={exports}", "kb=embedded:bundled"]
    command += ["host=127.0.0.1", f"port={port}", f"kb_timeout_s={kb_timeout_s}", *overrides]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 120
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"the server exited with code {process.returncode}; see {log}")
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not answer /health within 120 s; see {log}")
                time.sleep(0.25)
            yield process.pid
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def hostile_request(kind: str, listener_url: str) -> dict[str, Any]:
    """The httpx arguments of one hostile request."""
    if kind == "service_unit":
        question = f"Which country is «?y . SERVICE <{listener_url}> {{ ?x ?p ?o }} }} #» in?"
        return {"json": {"questions": [question], "execute": True}}
    if kind == "update_unit":
        return {"json": {"questions": ["Remove «DROP ALL» now"], "execute": True}}
    if kind == "update_question":
        return {"json": {"questions": ["DELETE WHERE { ?s ?p ?o } ; DROP ALL"], "execute": True}}
    if kind == "huge_question":
        return {"json": {"questions": ["why " * 50_000]}}
    if kind == "many_questions":
        return {"json": {"questions": ["Who?"] * 10_000}}
    if kind == "malformed_json":
        return {"content": b'{"questions": ["Who is', "headers": {"content-type": "application/json"}}
    raise ValueError(f"unknown hostile request kind {kind!r}")


def plan(n: int, hostile: float, questions: list[str], seed: int) -> list[tuple[str, dict[str, Any]]]:
    """(kind, request) for each of the n requests: hostile ones at seeded random positions."""
    rng = random.Random(seed)
    n_hostile = round(n * hostile)
    positions = set(rng.sample(range(n), n_hostile))
    out: list[tuple[str, dict[str, Any]]] = []
    k = 0
    for i in range(n):
        if i in positions:
            out.append((HOSTILE[k % len(HOSTILE)], {}))
            k += 1
        else:
            body = {"questions": [rng.choice(questions)], "execute": rng.random() < 1 / 3}
            out.append(("benign", {"json": body}))
    return out


async def send_all(
    url: str, requests: list[tuple[str, dict[str, Any]]], concurrency: int, listener_url: str
) -> list[tuple[str, int, float]]:
    """(kind, status, seconds) of every request, sent by `concurrency` clients; status 0: no response."""
    queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    for item in requests:
        queue.put_nowait(item)
    results: list[tuple[str, int, float]] = []

    async def client(http: httpx.AsyncClient) -> None:
        while not queue.empty():
            kind, args = queue.get_nowait()
            if kind != "benign":
                args = hostile_request(kind, listener_url)
            start = time.perf_counter()
            try:
                status = (await http.post(f"{url}/translate", **args)).status_code
            except httpx.TransportError:
                status = 0
            results.append((kind, status, time.perf_counter() - start))

    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        await asyncio.gather(*(client(http) for _ in range(concurrency)))
    return results


def _rss(pid: int) -> tuple[int, int]:
    """(RSS of the process, RSS of its children) in bytes."""
    process = psutil.Process(pid)
    return process.memory_info().rss, sum(c.memory_info().rss for c in process.children(recursive=True))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _latency(values: list[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {
        "p50_ms": round(statistics.median(ms), 1) if ms else float("nan"),
        "p95_ms": round(_percentile(ms, 0.95), 1),
        "max_ms": round(max(ms), 1) if ms else float("nan"),
    }


def throughput(export: Path, questions: list[str], args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Questions/s and latency per setting (quantize mode; one export or several together) and client
    count: servers side by side, alternated."""
    rounds: dict[tuple[str, int], list[tuple[float, list[float], int]]] = {}
    members: list[tuple[str, Path | list[Path]]] = [("one", export)]
    if args.with_exports:
        members.append((f"{1 + len(args.with_exports)} together", [export, *args.with_exports]))
    asked = {"repair": True} if args.repair else {"execute": True} if args.with_exports else {}
    with ExitStack() as stack:
        urls = {}
        for mode in args.quantize:
            for name, exports in members:
                setting = f"{mode}, {name}" if args.with_exports else mode
                port = _free_port()
                log = workdir / f"server-{mode}-{name.replace(' ', '-')}.log"
                stack.enter_context(
                    running_server(exports, port, log, args.kb_timeout_s, args.threads, (f"quantize={mode}",))
                )
                urls[setting] = f"http://127.0.0.1:{port}"
        for url in urls.values():  # warm-up: first batches, allocator, linker caches
            asyncio.run(send_all(url, plan(args.warmup, 0.0, questions, args.seed + 1), 4, ""))
        for r in range(args.rounds):
            for clients in args.clients:
                for setting, url in urls.items():
                    n = clients * args.per_client
                    requests = [
                        ("benign", {"json": {"questions": [q], **asked}})
                        for q in random.Random(args.seed + r).choices(questions, k=n)
                    ]
                    start = time.perf_counter()
                    results = asyncio.run(send_all(url, requests, clients, ""))
                    seconds = time.perf_counter() - start
                    failed = sum(status != 200 for _, status, _ in results)
                    ok = [t for _, status, t in results if status == 200]
                    rounds.setdefault((setting, clients), []).append((seconds, ok, failed))
    rows = []
    for (setting, clients), passes in rounds.items():
        latencies = [t for _, times, _ in passes for t in times]
        rows.append(
            {
                "setting": setting,
                "clients": clients,
                "questions": len(latencies),
                "failed": sum(failed for _, _, failed in passes),  # no 200 (status 0: no response)
                "questions_per_s": round(len(latencies) / sum(s for s, _, _ in passes), 2),
                **_latency(latencies),
            }
        )
    return {"rows": rows}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--hostile", type=float, default=0.01, help="share of hostile requests")
    parser.add_argument("--warmup", type=int, default=100, help="requests before the memory baseline")
    parser.add_argument("--questions", type=int, default=200, help="generated questions to draw from")
    parser.add_argument("--kb-timeout-s", type=float, default=5.0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the server")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--throughput", action="store_true", help="questions/s per client count and setting")
    parser.add_argument(
        "--export", type=Path, default=None, help="throughput of this export (default: random)"
    )
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--quantize", nargs="+", default=["none", "int8"], choices=["none", "int8", "bf16"])
    parser.add_argument("--per-client", type=int, default=16, help="requests per client and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--with", dest="with_exports", type=Path, action="append", default=[],
        help="throughput: an export that answers together with --export (repeatable)",
    )  # fmt: skip
    parser.add_argument("--repair", action="store_true", help="throughput: requests ask for repair")
    parser.add_argument(
        "--questions-file", type=Path, default=None, help="throughput: a JSONL set's questions"
    )
    args = parser.parse_args(argv)
    if args.throughput:
        return run_throughput(args)
    if args.requests < 1 or args.concurrency < 1 or not 0 <= args.hostile <= 1 or args.warmup < 0:
        parser.error("need --requests >= 1, --concurrency >= 1, 0 <= --hostile <= 1, --warmup >= 0")

    with tempfile.TemporaryDirectory(prefix="bench_serve_") as tmp, loopback_listener() as listener:
        listener_url, received = listener
        export, questions = make_export(Path(tmp), args.questions, args.seed)
        port = _free_port()
        with running_server(export, port, Path(tmp) / "server.log", args.kb_timeout_s, args.threads) as pid:
            url = f"http://127.0.0.1:{port}"
            warmup = plan(args.warmup, 0.0, questions, args.seed + 1)
            asyncio.run(send_all(url, warmup, args.concurrency, listener_url))
            rss_start, worker_start = _rss(pid)
            start = time.perf_counter()
            results = asyncio.run(
                send_all(
                    url,
                    plan(args.requests, args.hostile, questions, args.seed),
                    args.concurrency,
                    listener_url,
                )
            )
            seconds = time.perf_counter() - start
            rss_end, worker_end = _rss(pid)
            health = httpx.get(f"{url}/health", timeout=10).json()
        contacted = list(received)

    statuses = Counter(status for _, status, _ in results)
    by_kind: dict[str, Counter[int]] = {}
    for kind, status, _ in results:
        by_kind.setdefault(kind, Counter())[status] += 1
    growth = (rss_end - rss_start) / rss_start
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
        "settings": {k: _plain(v) for k, v in vars(args).items()},
        "requests": len(results),
        "seconds": round(seconds, 2),
        "requests_per_s": round(len(results) / seconds, 1),
        "status_counts": {str(k): v for k, v in sorted(statuses.items())},
        "status_by_kind": {k: {str(s): n for s, n in sorted(c.items())} for k, c in sorted(by_kind.items())},
        "five_xx": sum(n for s, n in statuses.items() if s >= 500),
        "no_response": statuses.get(0, 0),
        "listener_requests": len(contacted),
        "latency_benign": _latency([t for kind, _, t in results if kind == "benign"]),
        "latency_all": _latency([t for _, _, t in results]),
        "server_rss_mb": {"start": round(rss_start / 2**20, 1), "end": round(rss_end / 2**20, 1)},
        "server_rss_growth": round(growth, 4),
        "kb_worker_rss_mb": {"start": round(worker_start / 2**20, 1), "end": round(worker_end / 2**20, 1)},
        "batches": health["batches"],
        "max_requests_per_batch": health["max_requests_per_batch"],
    }
    report["ok"] = (
        report["five_xx"] == 0
        and report["no_response"] == 0
        and report["listener_requests"] == 0
        and growth < MAX_RSS_GROWTH
    )
    if args.out is not None:
        atomic_write_json(args.out, report)
    print(json.dumps(report, indent=2))
    return report


def _plain(value: Any) -> Any:
    """A setting as JSON holds it: paths (also in lists) as text."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return str(value) if isinstance(value, Path) else value


def run_throughput(args: argparse.Namespace) -> dict[str, Any]:
    """`--throughput`: the table of questions/s and latency, printed and written to `--out`."""
    # A bad record is named by file, line and field before any server starts.
    asked = None if args.questions_file is None else read_questions(args.questions_file, "bundled")[0]
    if asked == []:
        raise ValueError(f"{args.questions_file}: no questions to ask")
    with tempfile.TemporaryDirectory(prefix="bench_serve_") as tmp:
        export, questions = make_export(Path(tmp), args.questions, args.seed)
        if args.export is not None:
            export = args.export
        if asked is not None:
            questions = [example.question for example in asked]
        figures = throughput(export, questions, args, Path(tmp))
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at the end",
        "settings": {k: _plain(v) for k, v in vars(args).items()},
        **figures,
        "ok": not any(row["failed"] for row in figures["rows"]),
    }
    lines = [
        "| setting | clients | questions/s | p50 ms | p95 ms | failed |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in sorted(figures["rows"], key=lambda r: (r["clients"], r["setting"])):
        lines.append(
            f"| {row['setting']} | {row['clients']} | {row['questions_per_s']} | {row['p50_ms']} | {row['p95_ms']} "
            f"| {row['failed']} |"
        )
    report["table"] = "\n".join(lines)
    if args.out is not None:
        atomic_write_json(args.out, report)
    print(report["table"])
    return report


if __name__ == "__main__":
    sys.exit(0 if main()["ok"] else 1)
