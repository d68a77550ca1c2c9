"""HTTP JSON API over a Translator: POST /translate, GET /health, OpenAPI at /openapi.json (docs at /docs).

Decoding a batch of 16 questions costs little more than decoding one, so concurrent requests are
batched: each request's questions go to an asyncio queue; a single worker takes the first waiting
request, collects more for up to `max_wait_ms` (or until `max_batch` questions), and decodes the
questions that share decoding settings together in a worker thread, so the event loop keeps
accepting requests meanwhile. Queries run on the configured KB only when a request asks for it, in
their own threads after decoding: a slow query never holds up the decoding of other requests, and
the KB's hard deadline (`kb_timeout_s`) turns it into an error answer. Several exports can serve
together (serving/ensemble.py): the answer most of them give is returned, so every request gets
answers; an ensemble's batch decodes and runs its members' queries in one call, in the query threads,
so the next batch is collected and started while a slow query is waited for. The execution layer refuses
SPARQL Update and SERVICE/FROM hosts outside `kb_allow_hosts`, and a question's «units» must each be
one KB element (annotation/units.py; else a 422), so no request can change the KB or make the server
contact another host.
"""

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from nmt_sparql.annotation.units import UnitError, check_units
from nmt_sparql.serving.ensemble import Ensemble
from nmt_sparql.serving.translator import Translation, Translator


@dataclass(frozen=True)
class Limits:
    """What one request may ask for; larger inputs get a 422 naming the field."""

    max_questions: int = 64
    max_question_chars: int = 1000
    max_beam: int = 16


@dataclass
class _Job:
    questions: list[str]
    beam: int | None
    annotate: bool
    repair: bool
    future: asyncio.Future[list[Translation]]


@dataclass
class BatchStats:
    """Counters of the batcher: how many decode calls, and how many requests the largest one served."""

    batches: int = 0
    requests: int = 0
    questions: int = 0
    max_requests_per_batch: int = 0


class Batcher:
    """Collects concurrent requests and decodes them together, one batch at a time, off the event loop;
    runs the queries of requests that ask for answers in separate threads (`execute_threads`). An
    `Ensemble` answers a batch in one call (decoding and its members' queries), run in those threads."""

    def __init__(
        self,
        translator: Translator | Ensemble,
        max_batch: int = 32,
        max_wait_ms: float = 5.0,
        execute_threads: int = 4,
    ):
        if max_batch < 1 or execute_threads < 1:
            raise ValueError(
                f"max_batch and execute_threads must be >= 1, got {max_batch}, {execute_threads}"
            )
        self.translator, self.max_batch, self.max_wait_s = translator, max_batch, max_wait_ms / 1000
        self.votes = isinstance(translator, Ensemble)
        self._answering: set[asyncio.Task[None]] = set()
        self.stats = BatchStats()
        self._queue: asyncio.Queue[_Job] | None = None
        self._task: asyncio.Task[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="decode")
        self._execute = ThreadPoolExecutor(max_workers=execute_threads, thread_name_prefix="execute")

    async def start(self) -> None:
        self._queue = asyncio.Queue()
        self._task = asyncio.create_task(self._work())

    async def stop(self) -> None:
        for task in [self._task, *self._answering]:
            if task is None:
                continue
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._executor.shutdown(wait=True)
        self._execute.shutdown(wait=True, cancel_futures=True)

    async def submit(
        self, questions: list[str], beam: int | None, annotate: bool, execute: bool, repair: bool = False
    ) -> list[Translation]:
        if self._queue is None:
            raise RuntimeError("the batcher is not started")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Translation]] = loop.create_future()
        await self._queue.put(_Job(questions, beam, annotate, repair, future))
        results = await future
        if self.votes:  # the members' answers decided the vote: they are there
            return results
        if repair:  # KB rounds, off the decode thread like any execution
            results = list(
                await asyncio.gather(
                    *(loop.run_in_executor(self._execute, self.translator.repair, r) for r in results)
                )
            )
        elif execute:
            answers = await asyncio.gather(
                *(loop.run_in_executor(self._execute, self.translator.execute, r.sparql) for r in results)
            )
            for result, answer in zip(results, answers):
                result.answer = answer
        return results

    async def _collect(self) -> list[_Job]:
        """The first waiting job plus whatever arrives within max_wait, up to max_batch questions."""
        assert self._queue is not None
        jobs = [await self._queue.get()]
        size = len(jobs[0].questions)
        deadline = time.monotonic() + self.max_wait_s
        while size < self.max_batch:
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                break
            try:
                job = await asyncio.wait_for(self._queue.get(), timeout)
            except TimeoutError:
                break
            jobs.append(job)
            size += len(job.questions)
        return jobs

    def _decode(self, jobs: list[_Job]) -> list[list[Translation] | Exception]:
        """Decode jobs grouped by their settings; a failing group fails only its own jobs."""
        groups: dict[tuple[int | None, bool, bool], list[int]] = {}
        for i, job in enumerate(jobs):
            groups.setdefault((job.beam, job.annotate, job.repair), []).append(i)
        out: list[list[Translation] | Exception] = [[] for _ in jobs]
        for (beam, annotate, repair), members in groups.items():
            questions = [q for i in members for q in jobs[i].questions]
            try:
                results = self._translate(questions, beam, annotate, repair)
            except Exception as err:  # noqa: BLE001 - reported to the requests of this group
                for i in members:
                    out[i] = err
                continue
            pos = 0
            for i in members:
                n = len(jobs[i].questions)
                out[i] = results[pos : pos + n]
                pos += n
        return out

    def _translate(
        self, questions: list[str], beam: int | None, annotate: bool, repair: bool
    ) -> list[Translation]:
        if isinstance(self.translator, Ensemble):
            return self.translator.translate(questions, beam=beam, annotate=annotate, repair=repair)
        n_best = self.translator.beam_of(beam) if repair else None  # repair starts from the n-best
        return self.translator.translate(questions, beam=beam, annotate=annotate, n_best=n_best)

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            jobs = await self._collect()
            self.stats.batches += 1
            self.stats.requests += len(jobs)
            self.stats.questions += sum(len(j.questions) for j in jobs)
            self.stats.max_requests_per_batch = max(self.stats.max_requests_per_batch, len(jobs))
            if not self.votes:
                await self._deliver(jobs, loop.run_in_executor(self._executor, self._decode, jobs))
                continue
            task = asyncio.create_task(
                self._deliver(jobs, loop.run_in_executor(self._execute, self._decode, jobs))
            )
            self._answering.add(task)  # held until done: the loop keeps only weak references
            task.add_done_callback(self._answering.discard)

    async def _deliver(
        self, jobs: list[_Job], decoding: asyncio.Future[list[list[Translation] | Exception]]
    ) -> None:
        """Each job's results (or the error of its group) to the request waiting for them."""
        try:
            outcomes = await decoding
        except Exception as err:  # noqa: BLE001 - never let the worker die
            outcomes = [err] * len(jobs)
        for job, outcome in zip(jobs, outcomes):
            if job.future.done():  # the client went away
                continue
            if isinstance(outcome, Exception):
                job.future.set_exception(outcome)
            else:
                job.future.set_result(outcome)


class Result(BaseModel):
    question: str
    input: str = Field(description="the annotated text the model read")
    sparql: str
    tokens: list[str]
    kb_elements: list[str]
    answer: dict[str, Any] | None = Field(None, description="present when execute or repair was requested")
    repair: dict[str, Any] | None = Field(None, description="the repair rounds, when repair was requested")
    explanation: str | None = Field(
        None, description="the query in plain English, when explain was requested"
    )
    ensemble: dict[str, int] | None = Field(
        None, description="several exports: the member whose answer won, its votes, members asked, members"
    )


class TranslateResponse(BaseModel):
    results: list[Result]


class Health(BaseModel):
    status: str
    model: str = Field(description="the model's name; several exports: their names joined by +")
    annotation: str
    members: int = Field(description="exports answering together (1: one export)")
    kb: bool
    batches: int
    requests: int
    max_requests_per_batch: int


def request_model(limits: Limits) -> type[BaseModel]:
    """The POST /translate body, with this server's limits in its schema (and so in /openapi.json)."""
    question = Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=limits.max_question_chars)
    ]
    return create_model(
        "TranslateRequest",
        __config__=ConfigDict(extra="forbid"),
        questions=(
            list[question],
            Field(
                ..., min_length=1, max_length=limits.max_questions, description="natural-language questions"
            ),
        ),
        beam=(
            int | None,
            Field(None, ge=1, le=limits.max_beam, description="beam size (default: the model's)"),
        ),
        execute=(bool, Field(False, description="run each query on the server's KB and return the answer")),
        annotate=(bool, Field(True, description="find KB elements in questions written without «tags»")),
        explain=(bool, Field(False, description="explain each query in plain English, with KB labels")),
        repair=(
            bool,
            Field(
                False, description="repair the n-best on the KB (up to 5 rounds); returns answer and rounds"
            ),
        ),
    )


def create_app(
    translator: Translator | Ensemble,
    limits: Limits | None = None,
    max_batch: int = 32,
    max_wait_ms: float = 5.0,
    execute_threads: int = 4,
) -> FastAPI:
    """The FastAPI app; the batcher runs for the app's lifetime (startup to shutdown)."""
    limits = limits or Limits()
    batcher = Batcher(translator, max_batch, max_wait_ms, execute_threads)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await batcher.start()
        try:
            yield
        finally:
            await batcher.stop()

    app = FastAPI(title="nmt-sparql", summary="natural-language questions -> SPARQL", lifespan=lifespan)
    app.state.batcher = batcher
    Request = request_model(limits)

    @app.post("/translate", response_model=TranslateResponse)
    async def translate(body: Request) -> dict[str, Any]:  # type: ignore[valid-type]
        if (body.execute or body.repair) and translator.kb is None:
            raise HTTPException(
                400, "execute, repair: this server has no KB configured (start it with kb=...)"
            )
        for i, question in enumerate(body.questions):
            try:
                check_units(question, translator.prefixes)
            except UnitError as err:  # same shape as the body validation errors
                detail = [{"loc": ["body", "questions", i], "msg": str(err), "type": "unit_error"}]
                raise HTTPException(422, detail) from None
        results = await batcher.submit(body.questions, body.beam, body.annotate, body.execute, body.repair)
        if body.explain:  # parsing takes milliseconds a query: off the event loop
            texts = await asyncio.get_running_loop().run_in_executor(
                None, lambda: [translator.explain(r.sparql) for r in results]
            )
            for result, text in zip(results, texts):
                result.explanation = text
        return {"results": [r.to_json() for r in results]}

    @app.get("/health", response_model=Health)
    async def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "model": translator.name,
            "annotation": translator.scheme,
            "members": len(translator.members) if isinstance(translator, Ensemble) else 1,
            "kb": translator.kb is not None,
            "batches": batcher.stats.batches,
            "requests": batcher.stats.requests,
            "max_requests_per_batch": batcher.stats.max_requests_per_batch,
        }

    return app
