"""Inspect AI eval logs: ``.json`` (one document) and ``.eval`` (a zip archive).

Every sample, and every epoch of it, is a run, titled with its id, epoch, score and status
(``turnscope list``; ``--run K`` picks one); the runs come in the log's sample order, and the
side calls after them. An ``.eval`` is read with the standard library's ``zipfile`` from the
bytes in memory, one ``samples/<id>_epoch_<n>.json`` at a time, never extracted to disk; loaded
lazily (to list its runs and open one) a sample's runs are built again when first asked for (``_Sample``).

Each ``ModelEvent`` is one model call. Its recorded ``call.request`` is the exact request:
where the provider was Anthropic it is a Messages API body and the prefixes are exact; another
provider's request (OpenAI Chat Completions and the providers that speak it) is converted as
the ``openai`` loader converts one, and the run says so. Without a recorded call, the event's
``input`` messages are converted into the reconstructed prefix. The calls of a sample are
grouped into conversations as recorded exchanges are (``tui.formats.recorded.conversations``):
the longest is the sample's run, and the calls of its scorers (model-graded scoring, inside a
``scorer`` span or step) are side calls, listed after the samples, never turns of its run.

Before use, every ``attachment://<hash>`` string (in messages, events and calls) is replaced by
the sample's ``attachments[hash]``, and a v3 event's ``input_refs`` (and a call's
``call_refs``) are resolved into the sample's ``message_pool`` (``call_pool``).
"""

from __future__ import annotations

import io
import pickle
import re
import threading
import weakref
import zipfile
from typing import Any, Iterator

import orjson

from tui.core import collector, jsonio
from tui.core.errors import LoadError
from tui.core.run import RECONSTRUCTED, LoadWarning, Run, first_text
from tui.formats.chat.convert import convert
from tui.formats.converted import chat_answer, chat_request
from tui.formats.document import Document
from tui.formats.recorded.conversations import build_runs
from tui.formats.recorded.exchange import Exchange, drop_credentials
from tui.formats.request import looks_openai

NAME = "inspect"
DESCRIPTION = "Inspect AI eval log (.json, or the .eval zip archive)"

ATTACHMENT = "attachment://"
#: Where a chat-form exchange keeps its request's params and tools until the run is converted.
RAW = "__inspect_request__"
#: Keys Inspect records beside an Anthropic request that the SDK takes as options, not body fields.
_SDK_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")
#: Inspect's stop reasons under their Anthropic names.
_STOPS = {"stop": "end_turn", "tool_calls": "tool_use", "max_tokens": "max_tokens", "model_length": "max_tokens",
          "content_filter": "refusal"}
_SAMPLE = re.compile(r"^samples/(.+)_epoch_(\d+)\.json$")
CONVERTED = ("converted from {provider}'s requests (the OpenAI chat format) as the openai loader converts them: "
             "prefixes are reconstructed, not what was sent")
FROM_INPUT = ("no model call recorded its request: the prefixes are the model events' input messages, converted "
              "(reconstructed)")


# -- detection -----------------------------------------------------------------------------


def _is_zip(doc: Document) -> bool:
    return doc.opening[:4] in (b"PK\x03\x04", b"PK\x05\x06")  # the head: sniffing reads no whole file


def _archive(doc: Document) -> zipfile.ZipFile | None:
    try:
        return zipfile.ZipFile(io.BytesIO(doc.data))
    except (zipfile.BadZipFile, OSError, ValueError):
        return None


def _is_log(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("eval"), dict) and "version" in value and "status" in value


def sniff(doc: Document) -> int:
    if _is_zip(doc):
        archive = _archive(doc)
        names = set(archive.namelist()) if archive is not None else set()
        return 95 if "header.json" in names or "_journal/start.json" in names else 5
    if doc.head.startswith(b"{") and b'"eval"' in doc.head and not doc.is_json_lines():
        value = doc.json_or_none()
        if _is_log(value):
            return 95
        if isinstance(value, dict) and isinstance(value.get("eval"), dict) and "samples" in value:
            return 5  # almost: load says what is missing
    return 0


# -- loading -------------------------------------------------------------------------------


def load(doc: Document) -> list[Run]:
    if _is_zip(doc):
        header, samples, notes = _eval_archive(doc)
    else:
        header, samples, notes = _json_log(doc)
    samples_runs: list[Run] = []
    sides: list[Run] = []
    status = header.get("status") if isinstance(header.get("status"), str) else "started"
    listed: list[tuple[zipfile.ZipFile, str, bytes]] = []
    for sample in samples:
        if isinstance(sample, _Sample):  # an .eval member
            if doc.lazy:  # what a list shows of its runs, kept as bytes until every sample is read
                listed.append((sample.archive, sample.name, sample.listed(header, status)))
                continue
            main, more = sample.whole_runs(header, status)
        else:
            main, more = _sample_runs(doc.path, sample, header, status)
        sample = None  # dropped before the next one is parsed, which then reuses its memory
        if main is not None:
            samples_runs.append(main)
        sides += more
    for archive, name, facts in listed:  # the lazily built runs, made after the last parse (not among its objects)
        main, more = _Sample(doc, archive, name, header, status).hand_out(facts)
        if main is not None:
            samples_runs.append(main)
        sides += more
    if not samples_runs:
        raise LoadError(doc.path, "this Inspect log holds no samples (it was written without samples, or no "
                                  "sample has finished yet)", 1, 1)
    runs = samples_runs + sides
    if sides:
        notes.append(f"{len(sides)} side call conversation(s) (scorers' model calls and other calls outside a "
                     f"sample's main conversation) are listed after the {len(samples_runs)} sample run(s)")
    if isinstance(runs[0], _SampleRun):
        runs[0].prepend_warnings([LoadWarning(n) for n in notes])
    else:
        runs[0].warnings[:0] = [LoadWarning(n) for n in notes]
    for k, run in enumerate(runs):
        run.source.run_index, run.source.run_count = k, len(runs)
    return runs


def _json_log(doc: Document) -> tuple[dict[str, Any], Iterator[dict[str, Any]], list[str]]:
    if doc.is_json_lines():
        raise LoadError(doc.path, "not an Inspect eval log: it is JSON lines (a log is one JSON object with "
                                  "'version', 'eval' and 'status', or a .eval zip archive)", 1, 1)
    value = doc.json()
    if not _is_log(value):
        missing = [k for k in ("version", "eval", "status") if k not in value] if isinstance(value, dict) else []
        what = f"it has no {', '.join(repr(k) for k in missing)}" if missing else "its 'eval' is not an object"
        raise LoadError(doc.path, f"not an Inspect eval log: {what}", 1, 1)
    samples = value.get("samples")
    if not isinstance(samples, list):
        raise LoadError(doc.path, "this Inspect log holds no samples (it was written with log_samples off)", 1, 1)
    return value, (s for s in samples if isinstance(s, dict)), []


def _eval_archive(doc: Document) -> tuple[dict[str, Any], Iterator[_Sample], list[str]]:
    archive = _archive(doc)
    if archive is None:
        raise LoadError(doc.path, "a zip archive that cannot be read (truncated or damaged)", 1, 1)
    names = archive.namelist()
    notes: list[str] = []
    if "header.json" in names:
        header = _member(doc, archive, "header.json")
    elif "_journal/start.json" in names:
        header = _member(doc, archive, "_journal/start.json")
        header.setdefault("status", "started")
        notes.append("this .eval log has no header.json (the eval was still running, or was killed): read from "
                     "its journal")
    else:
        raise LoadError(doc.path, "a zip archive, but not an Inspect .eval log: it has no header.json or "
                                  "_journal/start.json", 1, 1)
    order = []
    for name in names:
        match = _SAMPLE.match(name)
        if match:
            ident, epoch = match.group(1), int(match.group(2))
            order.append((_natural(ident), epoch, name))
    order.sort()

    return header, (_Sample(doc, archive, name) for _, _, name in order), notes


def _member(doc: Document, archive: zipfile.ZipFile, name: str) -> Any:
    try:
        data = archive.read(name)
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, ValueError) as exc:
        raise LoadError(doc.path, f"{name} in the archive cannot be read ({exc})") from None
    try:
        return jsonio.loads(data, f"{doc.path}:{name}")
    except LoadError as exc:
        raise LoadError(doc.path, f"{name} in the archive: {exc.what}", exc.line, exc.col) from None


def _natural(ident: str) -> tuple[int, Any]:
    return (0, int(ident)) if ident.isdigit() else (1, ident)


# -- an .eval's samples, built when first asked for ----------------------------------------------


class _Sample:
    """One ``samples/<id>_epoch_<n>.json`` member of an ``.eval``, and the runs it gives.

    Loaded lazily (``load_runs(lazy=True)``: the app, ``list``, ``open_run``), the sample's runs are
    built once, to know how many there are and what a list shows of each (title, counts, meta), then
    dropped with the sample's JSON; the runs handed out are ``_SampleRun`` s that read the member again
    and build all of the sample's runs the first time anything else of one of them is asked for.
    Keeping every sample's built runs while the next samples are parsed costs the parse of each later
    one far more than building one again on demand (the kept objects sit among the freed ones: the
    parses and frees of a 100 MB log took twice as long). Otherwise (``check``, ``convert``: every
    run is read) the runs are built whole, once."""

    def __init__(self, doc: Document, archive: zipfile.ZipFile, name: str, header: dict[str, Any] | None = None,
                 status: str = "started"):
        self.doc, self.archive, self.name = doc, archive, name
        self.header: dict[str, Any] = header or {}
        self.status = status
        #: The runs handed out, weakly (they hold this sample until they are built; a run dropped unbuilt frees it).
        self.runs: list[weakref.ref[_SampleRun]] = []
        self.lock = threading.Lock()

    def built(self, whole: bool = True) -> tuple[Run | None, list[Run]]:
        value = _member(self.doc, self.archive, self.name)
        if not isinstance(value, dict):
            return None, []
        return _sample_runs(self.doc.path, value, self.header, self.status, whole)

    def whole_runs(self, header: dict[str, Any], status: str) -> tuple[Run | None, list[Run]]:
        """The sample's runs built whole (a caller that reads every run: ``check``, ``convert``)."""
        self.header, self.status = header, status
        return self.built()

    def listed(self, header: dict[str, Any], status: str) -> bytes:
        """What a list shows of each of the sample's runs (source, meta, counts, call start times),
        pickled: kept as one object until the runs are handed out (``hand_out``), after the last parse."""
        self.header, self.status = header, status
        main, more = self.built(whole=False)
        runs = ([main] if main is not None else []) + more
        facts = [(run.source, run.meta, (len(run.messages), len(run.calls)), run.call_starts()) for run in runs]
        return pickle.dumps((main is not None, facts), protocol=pickle.HIGHEST_PROTOCOL)

    def hand_out(self, listed: bytes) -> tuple[Run | None, list[Run]]:
        """The sample's runs as loading hands them out: what lists show of each, the rest built later."""
        has_main, facts = pickle.loads(listed)
        runs = [_SampleRun(self, source, meta, sizes, starts) for source, meta, sizes, starts in facts]
        self.runs = [weakref.ref(run) for run in runs]
        if not has_main:
            return None, runs
        return runs[0], runs[1:]

    def fill(self) -> None:
        """Build the sample's runs again and give each ``_SampleRun`` of it the rest of its attributes."""
        with self.lock:
            lazy = [ref() for ref in self.runs]
            if all(run is None or run.filled for run in lazy):
                return
            with collector.paused():
                main, more = self.built()
            runs = ([main] if main is not None else []) + more
            if len(runs) != len(self.runs):  # the bytes are in memory, so this cannot happen
                raise LoadError(self.doc.path, f"{self.name} in the archive gave {len(runs)} run(s) when built "
                                               f"again, {len(self.runs)} when loaded")
            for waiting, run in zip(lazy, runs):
                if waiting is not None:
                    waiting.fill(run)



class _SampleRun(Run):
    """A run of an ``.eval`` sample that holds only its source, meta and counts until anything else of it
    is asked for; then its sample is read and built again (``_Sample``) and it is the run loading built.
    What lists show (``title()``, ``meta``, ``source``, ``sizes()``, ``call_starts()``) answers without building."""

    def __init__(self, sample: _Sample, source: Any, meta: dict[str, Any], sizes: tuple[int, int],
                 starts: list[str | None]):
        # not the dataclass's __init__: the other fields come from ``fill``
        self.__dict__.update(source=source, meta=meta, _sample=sample, _sizes=sizes, _starts=starts, _notes=[])

    @property
    def filled(self) -> bool:
        return "_sample" not in self.__dict__

    def __getattr__(self, name: str) -> Any:  # only for attributes not there yet: build them
        sample = self.__dict__.get("_sample")
        if sample is None or name.startswith("__"):
            raise AttributeError(name)
        sample.fill()
        return object.__getattribute__(self, name)

    def fill(self, run: Run) -> None:
        state = self.__dict__
        if "_sample" not in state:
            return
        for key, value in vars(run).items():
            if key not in state:  # source and meta stay the ones handed out (a caller may have set them)
                state[key] = value
        notes = state.pop("_notes")
        if notes:
            state["warnings"][:0] = notes
        del state["_sample"], state["_sizes"], state["_starts"]

    def prepend_warnings(self, warnings: list[LoadWarning]) -> None:
        if self.filled:
            self.warnings[:0] = warnings
        else:
            self.__dict__["_notes"][:0] = warnings

    def sizes(self) -> tuple[int, int]:
        return self.__dict__["_sizes"] if not self.filled else super().sizes()

    def call_starts(self) -> list[str | None]:
        return list(self.__dict__["_starts"]) if not self.filled else super().call_starts()

    def __getstate__(self) -> dict[str, Any]:  # pickled or copied: the whole run
        if not self.filled:
            self.__dict__["_sample"].fill()
        return dict(self.__dict__)


# -- one sample ------------------------------------------------------------------------------


def _sample_runs(path: str, sample: dict[str, Any], header: dict[str, Any], status: str,
                 whole: bool = True) -> tuple[Run | None, list[Run]]:
    """The sample's run and its side runs. Not ``whole``: only what a list shows of each is right (the
    titles, counts, source and meta); attachments are put back only where a title is read from."""
    attachments = sample.get("attachments") if isinstance(sample.get("attachments"), dict) else {}
    events = sample.get("events")
    if not isinstance(events, list):
        transcript = sample.get("transcript")
        events = transcript.get("events") if isinstance(transcript, dict) else None
    events = events if isinstance(events, list) else []
    pool = sample.get("message_pool") if isinstance(sample.get("message_pool"), list) else []
    call_pool = sample.get("call_pool") if isinstance(sample.get("call_pool"), list) else []
    label = _label(sample)
    scorer_spans = _scorer_spans(events)
    agent: list[Exchange] = []
    scorer: list[Exchange] = []
    kinds: set[str] = set()
    in_scorer_step = 0
    serial = 0
    for event in events:
        if not isinstance(event, dict):
            continue
        kind = event.get("event")
        if kind == "step" and event.get("type") == "scorer":
            in_scorer_step += 1 if event.get("action") == "begin" else -1 if event.get("action") == "end" else 0
            continue
        if kind != "model":
            continue
        serial += 1
        exchange, how = _exchange(event, pool, call_pool, f"{label}, model event {serial}", attachments, whole)
        kinds.add(how)
        side = in_scorer_step > 0 or event.get("span_id") in scorer_spans
        (scorer if side else agent).append(exchange)
    provider = _provider(header)
    if not agent and not scorer:
        run = _from_messages(path, _resolve(sample.get("messages"), attachments), label)
        return _finish(run, sample, status, label, header), []
    runs = build_runs(agent, path, NAME) if agent else []
    side_runs = build_runs(scorer, path, NAME) if scorer else []
    for run in runs + side_runs:
        notes: list[str] = []
        if RAW in run.params:
            _convert_run(run, attachments if whole else {}, notes)  # listed: arguments stay unread
        _mark(run, kinds, provider)
        run.warnings += [LoadWarning(n) for n in notes]
        if whole:
            _resolve_run(run, attachments)
        else:
            _resolve_for_title(run, attachments)
    main = runs[0] if runs else None
    if main is not None:
        _finish(main, sample, status, label, header)
        if side_runs:
            main.warnings.append(LoadWarning(f"{sum(len(r.calls) for r in side_runs)} scorer model call(s) of this "
                                             "sample are side calls, listed after the samples"))
    sides = []
    for k, run in enumerate(runs[1:], 1):
        run.source.title = f"{label} · side conversation {k}: {run.title()}"
        sides.append(run)
    for run in side_runs:
        run.source.title = f"{label} · scorer call: {run.title()}"
        sides.append(run)
    if main is None:  # only scorer calls: the sample's run is its final messages
        main = _finish(_from_messages(path, _resolve(sample.get("messages"), attachments), label), sample, status,
                       label, header)
    return main, sides


def _label(sample: dict[str, Any]) -> str:
    return f"sample {sample.get('id')} epoch {sample.get('epoch', 1)}"


def _finish(run: Run, sample: dict[str, Any], status: str, label: str, header: dict[str, Any]) -> Run:
    scores = sample.get("scores") if isinstance(sample.get("scores"), dict) else {}
    values = {name: s.get("value") if isinstance(s, dict) else s for name, s in scores.items()}
    if sample.get("error"):
        error = sample["error"]
        state = "error: " + str(error.get("message") if isinstance(error, dict) else error)[:60]
    elif sample.get("limit"):
        limit = sample["limit"]
        state = "limit: " + str(limit.get("type") if isinstance(limit, dict) else limit)
    else:
        state = status
    score = ", ".join(f"{k} {v}" for k, v in values.items()) if values else "no score"
    run.source.title = f"{label} · {score} · {state} · {run.title()}"
    run.meta.update({"sample_id": sample.get("id"), "epoch": sample.get("epoch", 1), "scores": values,
                     "status": state})
    evalspec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    if isinstance(evalspec.get("task"), str):
        run.meta["task"] = evalspec["task"]
    return run


def _scorer_spans(events: list[Any]) -> set[Any]:
    """Ids of the spans a scorer ran in (and the spans inside them)."""
    parents: dict[Any, Any] = {}
    kinds: dict[Any, Any] = {}
    for event in events:
        if isinstance(event, dict) and event.get("event") == "span_begin":
            parents[event.get("id")] = event.get("parent_id")
            kinds[event.get("id")] = event.get("type")
    out = set()
    for span in kinds:
        seen, current = 0, span
        while current is not None and seen < 256:
            if kinds.get(current) in ("scorer", "scorers"):
                out.add(span)
                break
            current, seen = parents.get(current), seen + 1
    return out


def _provider(header: dict[str, Any]) -> str:
    evalspec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    model = evalspec.get("model") if isinstance(evalspec.get("model"), str) else ""
    return model.split("/", 1)[0] or "the provider"


def _resolve(value: Any, attachments: dict[str, Any]) -> Any:
    """``value`` with every ``attachment://`` string replaced by its attachment (new containers where changed).

    A container is walked only when its JSON holds a reference at all (one C-level serialisation finds
    out): most messages hold none, and walking them was a fifth of loading a large log."""
    if not attachments:
        return value
    if isinstance(value, (dict, list)):
        try:
            if _ATTACHMENT_BYTES not in orjson.dumps(value):
                return value
        except (orjson.JSONEncodeError, TypeError):
            pass
    return _resolved(value, attachments)


_ATTACHMENT_BYTES = ATTACHMENT.encode()


def _resolved(value: Any, attachments: dict[str, Any]) -> Any:
    if isinstance(value, str):
        if value.startswith(ATTACHMENT):
            found = attachments.get(value[len(ATTACHMENT):])
            return found if isinstance(found, str) else value
        return value
    if isinstance(value, dict):
        return {k: _resolved(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(v, attachments) for v in value]
    return value


def _resolve_run(run: Run, attachments: dict[str, Any]) -> None:
    """Attachments put back into what the run keeps, once: grouping compared the requests with their
    references in place (the same reference is the same text), so no request is walked whole."""
    if not attachments:
        return
    run.messages[:] = [_resolve(m, attachments) for m in run.messages]
    run.system = _resolve(run.system, attachments)
    run.tools = _resolve(run.tools, attachments)
    run.params = _resolve(run.params, attachments)
    for call in run.calls:
        if call.response is not None:
            call.response = _resolve(call.response, attachments)
        request = call.request
        if request is not None:
            request.replaced = {i: _resolve(m, attachments) for i, m in request.replaced.items()}
            request.system = _resolve(request.system, attachments)
            request.tools = _resolve(request.tools, attachments)
            request.params = _resolve(request.params, attachments)


def _resolve_for_title(run: Run, attachments: dict[str, Any]) -> None:
    """Attachments put back into the user messages ``Run.title`` reads: up to the first with text."""
    if not attachments:
        return
    for i, message in enumerate(run.messages):
        if isinstance(message, dict) and message.get("role") == "user":
            message = run.messages[i] = _resolve(message, attachments)
            if first_text(message.get("content")):
                return


def _arguments_resolved(messages: list[Any], attachments: dict[str, Any]) -> list[Any]:
    """Chat messages whose tool-call ``arguments`` strings are attachments, resolved before they are
    parsed (everything else is resolved in the built run)."""
    if not attachments:
        return messages
    out = []
    for message in messages:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        if isinstance(calls, list) and any(isinstance(c, dict) and isinstance(c.get("function"), dict) and
                                           str(c["function"].get("arguments", "")).startswith(ATTACHMENT)
                                           for c in calls):
            message = {**message, "tool_calls": _resolve(calls, attachments)}
        out.append(message)
    return out


def _ranges(refs: Any, pool: list[Any]) -> list[Any] | None:
    if not isinstance(refs, list):
        return None
    out: list[Any] = []
    for ref in refs:
        if isinstance(ref, list) and len(ref) == 2 and all(isinstance(x, int) for x in ref):
            out.extend(pool[ref[0]:ref[1]])
    return out


def _exchange(event: dict[str, Any], pool: list[Any], call_pool: list[Any], where: str,
              attachments: dict[str, Any], whole: bool = True) -> tuple[Exchange, str]:
    """The model event as an exchange, and how its request was had: exact, converted or input (not
    ``whole``: for a list only, dropped with the sample, so its credentials are not looked for)."""
    model = event.get("model") if isinstance(event.get("model"), str) else ""
    call = event.get("call") if isinstance(event.get("call"), dict) else {}
    request = call.get("request") if isinstance(call.get("request"), dict) else None
    if request is not None and call.get("call_refs") is not None:
        key = call.get("call_key") if isinstance(call.get("call_key"), str) else "messages"
        request = {**request, key: _ranges(call.get("call_refs"), call_pool)}
    output = event.get("output") if isinstance(event.get("output"), dict) else {}
    exchange = Exchange(where=where, line=None, method="POST", path="/v1/messages", body=None,
                        started=event.get("timestamp") if isinstance(event.get("timestamp"), str) else None)
    seconds = call.get("time") if isinstance(call.get("time"), (int, float)) else output.get("time")
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
        exchange.duration_ms = round(seconds * 1000.0, 3)
    messages = request.get("messages") if request is not None else None
    if isinstance(messages, list) and _anthropic(model, request):
        how = "exact"
        options = [k for k in _SDK_OPTIONS if k in request]
        exchange.body = {k: v for k, v in request.items() if k not in _SDK_OPTIONS} if options else request
        if options:
            exchange.notes.append(f"{where}: the recorded call also names SDK options that are not part of the "
                                  f"body sent ({', '.join(options)}); left out")
        response = call.get("response")
        if isinstance(response, dict) and isinstance(response.get("content"), list):
            exchange.message = response
            exchange.request_id = response.get("id") if isinstance(response.get("id"), str) else None
    elif isinstance(messages, list):
        how = "converted"
        exchange.body = {"messages": messages, RAW: {k: v for k, v in request.items() if k != "messages"}}
    else:
        how = "input"
        inputs = event.get("input")
        if (not inputs) and event.get("input_refs") is not None:
            inputs = _ranges(event.get("input_refs"), pool)
        raw = {"tools": _inspect_tools(event.get("tools"))}
        if isinstance(model, str) and model:
            raw["model"] = model.split("/", 1)[-1]
        exchange.body = {"messages": _chat(inputs if isinstance(inputs, list) else []), RAW: raw}
    if whole:
        exchange.dropped = drop_credentials(exchange.body if how == "exact" else exchange.body[RAW])
    if event.get("error"):
        exchange.error = str(event["error"])[:200]
        return exchange, how
    exchange.status = 200
    if how != "exact":
        exchange.message = _raw_answer(output, call.get("response"))
    elif exchange.message is None:
        exchange.message = _answer(output, call.get("response"))
    if exchange.message is None:
        exchange.error = "the model event holds no output message"
    return exchange, how


def _raw_answer(output: dict[str, Any], response: Any) -> dict[str, Any] | None:
    """The output message in the chat form the requests hold (converted with the whole run, once),
    with the call's usage, stop reason and model."""
    choices = output.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = choice.get("message")
    if not isinstance(message, dict):
        return None
    answer: dict[str, Any] = {"role": "assistant", "content": _chat_message(message)}
    reason = choice.get("stop_reason")
    stop = _STOPS.get(reason) if isinstance(reason, str) else None
    if stop is not None:
        answer["stop_reason"] = stop
    if isinstance(output.get("model"), str):
        answer["model"] = output["model"]
    usage = response.get("usage") if isinstance(response, dict) and isinstance(response.get("usage"), dict) else None
    answer["usage"] = usage if usage is not None else _usage(output.get("usage"))
    return answer


def _convert_run(run: Run, attachments: dict[str, Any], notes_out: list[str]) -> None:
    """A run grouped from chat-form requests, converted once: the messages (the last request and its answer)
    become Anthropic messages and each call points at its answer's new index."""
    raw = [m["content"] if isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("content"), dict)
           else m for m in run.messages]
    request = run.params.get(RAW) if isinstance(run.params.get(RAW), dict) else {}
    body, notes = chat_request({**request, "messages": _arguments_resolved(raw, attachments)})
    notes_out += notes
    converted = body.pop("messages")
    raw_answers = [i for i, m in enumerate(raw) if isinstance(m, dict) and m.get("role") == "assistant"]
    new_answers = [i for i, m in enumerate(converted) if isinstance(m, dict) and m.get("role") == "assistant"]
    where = dict(zip(raw_answers, new_answers))
    for call in run.calls:
        if call.message in where:
            call.message = where[call.message]
        else:  # a call that produced nothing: the index its answer would have had
            later = [where[i] for i in raw_answers if i >= call.message]
            call.message = later[0] if later else len(converted)
        call.request, call.response = None, None
    run.messages[:] = converted
    run.system = body.pop("system", None)
    run.tools = body.pop("tools", None)
    run.params = body
    run.order, run.prefill = None, False
    run.calls_changed()


def _anthropic(model: str, request: dict[str, Any]) -> bool:
    provider = model.split("/", 1)[0]
    if provider == "anthropic":
        return True
    messages = request.get("messages")
    return provider in ("bedrock", "vertex") and "claude" in model and not looks_openai(messages)


def _answer(output: dict[str, Any], response: Any) -> dict[str, Any] | None:
    """The model's answer in Anthropic form: the output message converted, with usage and stop reason."""
    choices = output.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = choice.get("message")
    if not isinstance(message, dict):
        return None
    usage = response.get("usage") if isinstance(response, dict) and isinstance(response.get("usage"), dict) else None
    stop = choice.get("stop_reason")
    return chat_answer(_chat_message(message), {"tool_calls": "tool_calls", "max_tokens": "length",
                                             "model_length": "length"}.get(stop, stop),
                       usage if usage is not None else _usage(output.get("usage")), output.get("model"))


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    out = {"input_tokens": usage.get("input_tokens"), "output_tokens": usage.get("output_tokens")}
    if isinstance(usage.get("input_tokens_cache_read"), int):
        out["cache_read_input_tokens"] = usage["input_tokens_cache_read"]
    if isinstance(usage.get("input_tokens_cache_write"), int):
        out["cache_creation_input_tokens"] = usage["input_tokens_cache_write"]
    return out


def _chat(messages: list[Any]) -> list[Any]:
    """Inspect's ChatMessages in the OpenAI chat form the chat converter reads."""
    return [_chat_message(m) for m in messages if isinstance(m, dict)]


def _chat_message(message: dict[str, Any]) -> dict[str, Any]:
    """One Inspect ChatMessage in the OpenAI chat form."""
    role = message.get("role")
    content = message.get("content")
    chat: dict[str, Any] = {"role": role, "content": _parts(content)}
    if role == "assistant" and isinstance(message.get("tool_calls"), list):
        chat["tool_calls"] = [{"id": c.get("id"), "type": "function",
                               "function": {"name": c.get("function"), "arguments": c.get("arguments")}}
                              for c in message["tool_calls"] if isinstance(c, dict)]
    if role == "tool":
        chat["tool_call_id"] = message.get("tool_call_id")
        error = message.get("error")
        if isinstance(error, dict) and error.get("message") and not content:
            chat["content"] = str(error["message"])
    return chat


def _parts(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    parts = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            parts.append({"type": "text", "text": part.get("text", "")})
        elif kind == "image":
            parts.append({"type": "image_url", "image_url": {"url": part.get("image")}})
        elif kind == "reasoning":
            if part.get("redacted"):
                parts.append({"type": "redacted_thinking", "data": part.get("reasoning") or ""})
            else:
                parts.append({"type": "thinking", "thinking": part.get("reasoning") or "",
                              "signature": part.get("signature") or ""})
        else:
            parts.append(part)
    return parts


def _inspect_tools(tools: Any) -> list[Any] | None:
    if not isinstance(tools, list) or not tools:
        return None
    return [{"type": "function", "function": {"name": t.get("name"), "description": t.get("description"),
                                              "parameters": t.get("parameters")}}
            for t in tools if isinstance(t, dict)]


def _from_messages(path: str, messages: Any, label: str) -> Run:
    converted = convert(_chat(messages if isinstance(messages, list) else []))
    run = Run(messages=converted.messages, system=converted.system,
              warnings=[LoadWarning("this sample recorded no model events: the run is its final messages, "
                                    "converted (reconstructed)")] + [LoadWarning(n) for n in converted.notes])
    run.source.path, run.source.format, run.source.prefix = path, NAME, RECONSTRUCTED
    return run


def _mark(run: Run, kinds: set[str], provider: str) -> None:
    """A run built from converted requests is reconstructed: its calls keep no recorded request."""
    if kinds == {"exact"}:
        return
    for call in run.calls:
        call.request = None
    run.source.prefix = RECONSTRUCTED
    run.warnings.insert(0, LoadWarning(FROM_INPUT if kinds == {"input"} else CONVERTED.format(provider=provider)))
