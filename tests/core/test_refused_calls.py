"""A model call that produced no message (a 400, a 529, a request never answered) is still a call:
its request can be rebuilt, it survives the native file, and `show` says it produced nothing."""

import orjson

from tui.core import native
from tui.core.prefix import call_request, request_at
from tui.core.run import EXACT, ModelCall, RecordedRequest, Run, Source


def _run():
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": "again"}]
    calls = [ModelCall(message=1, status=200, request=RecordedRequest(messages=1)),
             ModelCall(message=3, status=400, request=RecordedRequest(messages=3))]
    return Run(messages=messages, calls=calls, params={"model": "m", "max_tokens": 5},
               source=Source(path="r.json", format="t", prefix=EXACT))


def test_the_request_of_a_refused_call_is_rebuilt():
    run = _run()
    body = call_request(run, 1)
    assert body == {"model": "m", "max_tokens": 5, "messages": run.messages}
    assert request_at(run, 3).body == body and request_at(run, 3).call == 1


def test_a_refused_last_call_survives_the_native_file():
    run = _run()
    [back] = native.runs_from_document(orjson.loads(native.dumps([run])), "r.turnscope.json")
    assert back.calls == run.calls


def test_show_says_the_call_produced_nothing(tmp_path, cli):
    path = tmp_path / "r.turnscope.json"
    path.write_bytes(native.dumps([_run()]))
    result = cli("show", path, "--at", "3")
    assert result.code == 0, result.stderr
    assert "model call 2 was answered 400: it produced no message" in result.stdout
