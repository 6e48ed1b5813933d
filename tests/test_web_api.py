"""The JSON API of `termo serve` (`web.app`), through FastAPI's test client.

The oracle of every endpoint is the CLI itself: the same arguments run in-process through
`cli.app.main` must print exactly the JSON the endpoint answers, and a refused value must give
the CLI's one-line message (``termo: error: <detail>``) as the 422 ``detail``. Then malformed
bodies and the limits (body size, history length). The worker pool: tests/test_web_workers.py;
the pages and the HTTP server's edges: tests/test_web_pages.py.
"""

from __future__ import annotations

import json

import pytest

from web.limits import MAX_BODY, MAX_HISTORY
from web_helpers import (_no_game_env, cli_error, cli_json, cli_keys, client, detail_of,  # noqa: F401 - fixtures
                         in_api_terms, suggest_args, warnings_of)


# ----------------------------------------------------------------------------- same JSON as the CLI

SUGGEST_CASES = [
    {"game": "termo", "history": [], "level": 1},
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 1, "list": 5},
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 2},
    {"game": "termo", "history": ["tarso:BBBBB", "filme:BBBYY"], "level": 2, "t": "inf"},
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 2, "hard": True, "list": 3},
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 2, "extended": True},
    {"game": "termo", "history": ["xyzzy:BBBBB"], "level": 1},  # a word outside the list: a warning
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 3, "list": 10},  # filme, the transcript
    {"game": "wordle", "history": [], "level": 2},
    {"game": "wordle", "history": ["salet:BYBYB"], "level": 1},
    {"game": "wordle", "history": ["salet:BYBYB"], "level": 2, "t": 0.5},
    {"game": "nerdle-mini", "history": [], "level": 1},
    {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 2, "list": 4},
    {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 1, "strict": True},
    {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 3},  # a stored tree answers (source)
    {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 3, "no_tree": True},
    {"game": "wordle", "history": ["salet:BYBYB"], "level": 3},
    {"game": "termo", "history": ["tarso:BBBBB", "filme:GGGGG"], "level": 2},  # solved
]


@pytest.mark.parametrize("body", SUGGEST_CASES, ids=lambda b: f"{b['game']}-{len(b['history'])}-l{b['level']}")
def test_suggest_equals_the_cli(client, capsys, body):
    expected, warned = cli_json(capsys, suggest_args(body))
    response = client.post("/api/suggest", json=body)
    assert response.status_code == 200, response.text
    assert cli_keys(response.json()) == expected
    assert list(cli_keys(response.json())) == list(expected)  # the same keys, in the same order
    assert warnings_of(response) == warned


def test_the_transcript_through_the_api(client):
    data = client.post("/api/suggest", json={"history": ["tarso:BBBBB"], "level": 3}).json()
    assert data["candidates"] == 223 and data["word"] == "filme"
    assert [a["word"] for a in data["alternatives"][:3]] == ["cline", "linde", "lince"]


def test_numbers_as_text_like_the_command_line(client):
    a = client.post("/api/suggest", json={"history": ["tarso:BBBBB"], "level": 2, "t": 1}).json()
    b = client.post("/api/suggest", json={"history": ["tarso:BBBBB"], "level": "2", "t": "1.0"}).json()
    assert a == b


def test_games_equals_the_cli(client, capsys):
    expected, _ = cli_json(capsys, ["games"])
    assert client.get("/api/games").json() == expected


@pytest.mark.parametrize("body", [
    {"guess": "tarso", "answer": "filme"},
    {"guess": "saude", "answer": "saúde"},
    {"guess": "salet", "answer": "crane", "game": "wordle"},
    {"guess": "4*7=28", "answer": "7*4=28", "game": "nerdle-mini"},
    {"guess": "4*7=28", "answer": "7*4=28", "game": "nerdle-mini", "strict": True},
])
def test_feedback_equals_the_cli(client, capsys, body):
    args = ["feedback", body["guess"], body["answer"], "--game", body.get("game", "termo")]
    if body.get("strict"):
        args.append("--strict")
    expected, _ = cli_json(capsys, args)
    response = client.post("/api/feedback", json=body)
    assert response.status_code == 200, response.text
    assert response.json() == expected


@pytest.mark.parametrize("body", [
    {"guess": "filme", "history": ["tarso:BBBBB"]},
    {"guess": "xyzzy", "history": ["tarso:BBBBB"], "t": "inf"},
    {"guess": "crane", "game": "wordle"},
])
def test_partition_equals_the_cli(client, capsys, body):
    args = ["partition", body["guess"], *body.get("history", []), "--game", body.get("game", "termo")]
    if "t" in body:
        args += ["--t", str(body["t"])]
    expected, warned = cli_json(capsys, args)
    response = client.post("/api/partition", json=body)
    assert response.status_code == 200, response.text
    assert cli_keys(response.json()) == expected
    assert warnings_of(response) == warned


@pytest.mark.parametrize("params", [
    {"game": "wordle", "level": "2"},
    {"game": "nerdle-mini", "level": "3"},
    {"game": "termo", "level": "2", "t": "inf"},
])
def test_opener_equals_the_cli(client, capsys, params):
    args = ["opener", "--game", params["game"], "--level", params["level"]]
    if "t" in params:
        args += ["--t", params["t"]]
    expected, _ = cli_json(capsys, args)
    response = client.get("/api/opener", params=params)
    assert response.status_code == 200, response.text
    assert cli_keys(response.json()) == expected


def test_candidates_after_a_history(client):
    data = client.post("/api/candidates", json={"history": ["tarso:BBBBB"], "list": 3}).json()
    suggestion = client.post("/api/suggest", json={"history": ["tarso:BBBBB"], "level": 1, "list": 3}).json()
    assert cli_keys(data) == {"candidates": 223, "won": False, "turn": 2, "remaining": suggestion["remaining"]}
    six = ["tarso:BBBBB", "filme:BBBBB", "nuvem:BBBBB", "pudim:BBBBB", "beijo:BBBBB", "chefe:BBBBB"]
    code = client.post("/api/candidates", json={"history": six[:2]}).status_code
    assert code == 200
    won = client.post("/api/candidates", json={"history": ["tarso:GGGGG"], "list": 2}).json()
    assert cli_keys(won) == {"candidates": 1, "won": True, "turn": 2, "remaining": ["tarso"]}


# ----------------------------------------------------------------------------- the CLI's errors

ERROR_CASES = [
    {"history": ["tarso:GGGGY"]},  # impossible colours
    {"history": ["tarso:BBBBB", "filme:GGGGB"]},  # no candidate left
    {"history": ["tarso"]},  # not guess:colours
    {"history": ["tars:BBBBB"]},  # too short
    {"history": ["ta1so:BBBBB"]},  # not letters
    {"history": ["tarso:BBQBB"]},  # bad colours
    {"history": ["tarso:GGGGG", "filme:BBBBB"]},  # after a win
    {"history": ["tarso:BBBBB"] * 7},  # more rounds than tries
    {"history": ["tarso:BBBYB", "filme:BBBBB"], "hard": True, "level": 1},  # drops a revealed letter
    {"history": ["tarso:BGBBB", "filme:BBBBB"], "hard": True, "level": 1},  # drops a green
    {"level": 4},
    {"level": "x"},
    {"t": 0},
    {"t": "hot"},
    {"beam": 101},
    {"beam": 0},
    {"depth": 6},
    {"opener": "best"},
    {"list": 0},
    {"game": "scrabble"},
    {"game": "nerdle-mini", "history": ["1+1=2:BBBBB"]},
    {"game": "nerdle-mini", "history": ["1+1=3a:BBBBBB"]},
]


@pytest.mark.parametrize("body", ERROR_CASES, ids=lambda b: json.dumps(b, ensure_ascii=True)[:60])
def test_refused_like_the_cli(client, capsys, body):
    message = in_api_terms(cli_error(capsys, suggest_args(body)))
    response = client.post("/api/suggest", json=body)
    assert response.status_code == 422
    assert response.json()["detail"] == message


@pytest.mark.parametrize("body", [
    {"guess": "tars", "answer": "filme"},
    {"guess": "tarso", "answer": "xy"},
    {"guess": "4*7=29", "answer": "7*4=28", "game": "nerdle-mini"},
    {"guess": "tarso", "answer": "filme", "game": "chess"},
])
def test_feedback_refused_like_the_cli(client, capsys, body):
    message = cli_error(capsys, ["feedback", body["guess"], body["answer"], "--game", body.get("game", "termo")])
    response = client.post("/api/feedback", json=body)
    assert response.status_code == 422
    assert detail_of(response) == {"detail": message}


@pytest.mark.parametrize("body", [
    {"guess": "filme", "history": ["tarso:GGGGG"]},
    {"guess": "fil", "history": []},
    {"guess": "filme", "t": "-1"},
])
def test_partition_refused_like_the_cli(client, capsys, body):
    args = ["partition", body["guess"], *body.get("history", [])]
    if "t" in body:
        args += ["--t", body["t"]]
    message = cli_error(capsys, args)
    response = client.post("/api/partition", json=body)
    assert response.status_code == 422
    assert detail_of(response) == {"detail": message}


def test_opener_refused_like_the_cli(client, capsys):
    message = in_api_terms(cli_error(capsys, ["opener", "--game", "wordle", "--beam", "500"]))
    assert message.startswith("beam must be at most ")
    response = client.get("/api/opener", params={"game": "wordle", "beam": "500"})
    assert response.status_code == 422 and response.json()["detail"] == message
    response = client.get("/api/opener", params={"extended": "maybe"})
    assert response.status_code == 422 and response.json()["detail"] == "extended must be true or false, not 'maybe'"


def test_echoed_input_is_escaped_like_the_cli(client, capsys):
    body = {"history": ["\x1b[31m" + "z" * 40 + "\u202e:BBBBB"]}
    message = cli_error(capsys, suggest_args(body))
    response = client.post("/api/suggest", json=body)
    assert detail_of(response) == {"detail": message}
    assert "\\x1b[31m" in message and "\\u202e" in message
    assert "\x1b" not in response.json()["detail"] and "\u202e" not in response.json()["detail"]


# ----------------------------------------------------------------------------- malformed bodies, limits

@pytest.mark.parametrize("body, detail", [
    (b"{bad", "the body is not valid JSON"),
    (b"[1, 2]", "the body must be a JSON object"),
    (b'{"levl": 2}', "unknown field 'levl'"),
    (b'{"level": [2]}', "level must be an integer, not a list"),
    (b'{"history": "tarso:BBBBB"}', "history must be a list of texts guess:colours, not a text"),
    (b'{"history": [5]}', "history item 1 must be a text (guess:colours), not a number"),
    (b'{"hard": "very"}', "hard must be true or false, not a text"),
])
def test_malformed_bodies_are_one_line(client, body, detail):
    response = client.post("/api/suggest", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422
    assert response.json()["detail"] == detail and response.json()["loc"][0] == "body"


def test_missing_field(client):
    response = client.post("/api/feedback", json={"guess": "tarso"})
    assert response.status_code == 422
    assert {k: response.json()[k] for k in ("detail", "loc")} == {"detail": "missing field 'answer'",
                                                                   "loc": ["body", "answer"]}
    assert response.json()["code"] == "request.field"  # its languages: tests/test_messages.py


def test_body_size_limit(client):
    big = {"history": ["tarso:BBBBB"], "game": "termo", "pad": "x" * MAX_BODY}
    response = client.post("/api/suggest", json=big)
    assert response.status_code == 413
    assert response.json()["detail"] == f"the request body is larger than {MAX_BODY:,} bytes"
    assert response.json()["code"] == "request.too_large"


def test_streamed_body_over_the_limit(client):
    def chunks():
        for _ in range(40):
            yield b" " * 1024

    response = client.post("/api/suggest", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413


def test_history_length_limit(client):
    response = client.post("/api/suggest", json={"history": ["tarso:BBBBB"] * (MAX_HISTORY + 1)})
    assert response.status_code == 422
    assert response.json()["detail"].startswith(f"history has {MAX_HISTORY + 1} items; at most {MAX_HISTORY}")
    response = client.post("/api/partition", json={"guess": "filme", "history": ["t" * 70 + ":BBBBB"]})
    assert response.status_code == 422
    assert response.json()["detail"] == "history item 1 is too long: 76 characters, at most 64"


def test_text_field_limit(client):
    response = client.post("/api/feedback", json={"guess": "a" * 100, "answer": "filme"})
    assert response.status_code == 422
    assert response.json()["detail"] == "guess is too long: 100 characters, at most 64"


# ----------------------------------------------------------------------------- the server's own edges

def test_a_deeply_nested_body_is_422(client):
    for body in (b"[" * 5000 + b"]" * 5000, b'{"history": ' + b"[" * 3000 + b"]" * 3000 + b"}"):
        response = client.post("/api/suggest", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 422, response.text
        assert response.headers["content-type"] == "application/json"
        assert isinstance(response.json()["detail"], str) and "\n" not in response.json()["detail"]


@pytest.mark.parametrize("value", [1, 0, "yes", "true", "on", "maybe", None, [True]])
def test_booleans_are_strict_json_booleans(client, value):
    for path, body in (("/api/suggest", {"level": 1}), ("/api/candidates", {}),
                       ("/api/feedback", {"guess": "tarso", "answer": "filme"})):
        key = "strict" if path == "/api/feedback" else "hard"
        response = client.post(path, json={**body, key: value})
        assert response.status_code == 422, (path, value, response.text)
        assert response.json()["detail"].startswith(f"{key} must be true or false, not ")


def test_opener_query_booleans_are_true_or_false(client):
    for value in ("1", "yes", "on", "maybe"):
        response = client.get("/api/opener", params={"game": "wordle", "level": "1", "hard": value})
        assert response.status_code == 422, (value, response.text)
        assert response.json()["detail"] == f"hard must be true or false, not {value!r}"
    assert client.get("/api/opener", params={"game": "wordle", "level": "1", "hard": "true"}).status_code == 200


def test_api_errors_name_the_fields_not_the_flags(client):
    cases = [({"level": 4}, "level must be 1, 2 or 3, not 4"),
             ({"beam": 101}, "beam must be at most 100 "),
             ({"list": 0}, "list must be at least 1, not 0"),
             ({"opener": "best"}, "opener must be 'default' or 'optimal', not 'best'"),
             ({"history": ["--level:BBBBB"]}, None)]  # echoed input is left as typed
    for body, detail in cases:
        response = client.post("/api/suggest", json=body)
        assert response.status_code == 422
        if detail is not None:
            assert response.json()["detail"].startswith(detail), response.json()
        else:
            assert "'--level" in response.json()["detail"]
    response = client.get("/api/opener", params={"level": "7"})
    assert response.status_code == 422 and response.json()["detail"] == "level must be 1, 2 or 3, not 7"


def test_validation_errors_say_where(client):
    response = client.post("/api/suggest", json={"hard": "very"})
    assert response.json()["loc"] == ["body", "hard"]
    data = client.post("/api/suggest", json={"level": 2.5}).json()  # pydantic's loc names the union member
    assert data["loc"] == ["body", "level", "int"] and data["params"] == {"field": "level"}
    assert data["messages"]["en"] == "the request is not valid: check the field “level”"  # it said “int”


def test_the_openapi_error_schema_is_the_real_body(client):
    spec = client.get("/openapi.json").json()
    ref = spec["paths"]["/api/suggest"]["post"]["responses"]["422"]["content"]["application/json"]["schema"]["$ref"]
    schema = spec["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert schema["properties"]["detail"]["type"] == "string" and schema["required"] == ["detail"]
    assert {"code", "params", "messages", "loc"} <= set(schema["properties"])
    assert "ValidationError" not in spec["components"]["schemas"]
    real = client.post("/api/suggest", json={"level": 9}).json()
    assert set(real) <= set(schema["properties"]) and isinstance(real["detail"], str)
    for path in ("/nerdle/archive", "/nerdle/today", "/nerdle/stats"):  # pages refuse as pages
        documented = spec["paths"][path]["get"]["responses"]["422"]["content"]
        real = client.get(path, params={"month" if path.endswith("stats") else "date": "bad"})
        assert real.status_code == 422 and real.headers["content-type"].startswith("text/html")
        assert list(documented) == ["text/html"], (path, documented)


def test_nerdle_purple_p_through_the_api(client):
    """The API parses colours with the game's own letters, as the CLI does: Nerdle's P is purple."""
    body = {"game": "nerdle-mini", "level": 2}
    purple = client.post("/api/suggest", json={**body, "history": ["4*7=28:PBBPBB"]})
    yellow = client.post("/api/suggest", json={**body, "history": ["4*7=28:YBBYBB"]})
    assert purple.status_code == yellow.status_code == 200
    assert purple.json() == yellow.json()
    refused = client.post("/api/suggest", json={**body, "history": ["4*7=28:VBBVBB"]})
    assert refused.status_code == 422 and "'v' is verde in Termo" in refused.json()["detail"]


# ----------------------------------------------------------------------------- lone surrogates

SURROGATES = ("\ud800", "tar\udfffso")  # a lone high and a lone low surrogate: JSON admits both as escapes
SAMPLES = {"guess": "tarso", "answer": "sorta", "date": "2024-01-01", "month": "2024-01"}  # required fields


def _admits(schema: dict, kind: str) -> bool:
    return schema.get("type") == kind or any(s.get("type") == kind for s in schema.get("anyOf", ()))


def _surrogate_requests(spec: dict):
    """(method, path, URL, what, request kwargs): every text field of every endpoint in the OpenAPI
    schema (a body field that admits a text or a list of texts, a query or path parameter) given a
    lone surrogate, the other required fields a sound value; and a body whose key is one."""
    schemas = spec["components"]["schemas"]
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            params = op.get("parameters", ())
            for param in params:  # in a URL a surrogate can only be its (invalid UTF-8) bytes
                if not _admits(param.get("schema", {}), "string") and not any(
                        _admits(s, "string") for s in param.get("schema", {}).get("anyOf", ())):
                    continue
                for text in ("%ED%A0%80", "tar%ED%BF%BFso"):
                    values = {p["name"]: SAMPLES.get(p["name"], "x") for p in params if p["in"] == "path"}
                    if param["in"] == "path":
                        values[param["name"]] = text
                    url = path.format(**values)
                    if param["in"] == "query":
                        url += f"?{param['name']}={text}"
                    yield method, path, url, f"{param['in']} {param['name']}", {}
            ref = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
            if not ref:
                continue
            schema = schemas[ref.rsplit("/", 1)[-1]]
            base = {name: SAMPLES[name] for name in schema.get("required", ())}
            for name, field in schema["properties"].items():
                for text in SURROGATES:
                    if _admits(field, "string"):
                        value = text
                    elif _admits(field, "array") and _admits(field.get("items", {}), "string"):
                        value = [text]
                    else:
                        continue
                    yield method, path, path, f"body {name}", {"json": {**base, name: value}}
            yield method, path, path, "body key", {"json": {**base, SURROGATES[0]: 1}}


def _as_json_text(kwargs: dict) -> dict:
    """The request's JSON body as text with ``\\ud800`` escapes (the client cannot encode a surrogate)."""
    if "json" not in kwargs:
        return kwargs
    return {"content": json.dumps(kwargs["json"]).encode("ascii"), "headers": {"Content-Type": "application/json"}}


def test_a_lone_surrogate_in_any_text_field_is_refused_in_valid_json(client):
    """No 500 for a lone surrogate anywhere (the audit's UnicodeEncodeError while echoing it): every
    endpoint answers a 4xx (or 200) whose body is valid UTF-8 and, for the API, JSON that echoes
    the surrogate escaped (``\\ud800``, as the command line does)."""
    spec = client.get("/openapi.json").json()
    cases = list(_surrogate_requests(spec))
    cases += [("get", "/{game}", "/%ED%A0%80", "path game", {}), ("get", "/", "/?game=%ED%A0%80", "query", {})]  # pages
    fields = {(path, what) for _, path, _, what, _ in cases}
    assert ("/api/suggest", "body game") in fields and ("/api/mode/boards", "body history") in fields
    assert ("/api/opener", "query game") in fields and len(fields) >= 30
    for method, path, url, what, kwargs in cases:
        response = client.request(method.upper(), url, **_as_json_text(kwargs))
        assert response.status_code < 500, (path, what, response.status_code, response.content[:300])
        text = response.content.decode("utf-8")  # strict: valid UTF-8
        if response.headers["content-type"].startswith("application/json"):
            body = json.loads(text)
            assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in json.dumps(body, ensure_ascii=False)), (path, what)
        if response.status_code == 422 and path.startswith("/api/") and "detail" in response.text:
            assert "\ud800" not in text and "\udfff" not in text


# ----------------------------------------------------------------------------- the schema and the refusals agree

def _schema_admits_empty(schema: dict) -> bool:
    """Whether a field's JSON schema admits the text "" (the few keywords this API's schema uses)."""
    import re

    for branch in schema.get("anyOf", [schema]):
        if branch.get("type") == "string" and branch.get("minLength", 0) == 0 and \
                re.search(branch.get("pattern", ""), "") is not None:
            return True
    return False


def test_an_empty_text_is_refused_exactly_where_the_schema_refuses_it(client):
    """Every text field of every endpoint (from the OpenAPI schema): "" is answered 200 where the
    schema admits it ("game": "" is the default game) and 422 where it does not ("level": "" was
    schema-valid and refused; the schema now gives the texts a number may be)."""
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    base = {"/api/suggest": {"level": 1}, "/api/feedback": {"guess": "tarso", "answer": "sorta"},
            "/api/partition": {"guess": "tarso"}, "/api/review": {"history": ["tarso:GGGGG"], "share": True}}
    checked = []
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            if path == "/api/opener":  # query parameters
                for param in op["parameters"]:
                    expected = 200 if _schema_admits_empty(param["schema"]) else 422
                    response = client.get(path, params={param["name"]: "", **({} if param["name"] == "level" else {"level": 2})})
                    checked.append((path, param["name"], expected, response.status_code))
            ref = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
            if not ref:
                continue
            for name, field in schemas[ref.rsplit("/", 1)[-1]]["properties"].items():
                if _admits(field, "array") and _admits(field.get("items", {}), "string"):
                    value, admitted = [""], _schema_admits_empty(field["items"])
                elif _admits(field, "string") or any(_admits(b, "string") for b in field.get("anyOf", ())):
                    value, admitted = "", _schema_admits_empty(field)
                else:
                    continue
                response = client.post(path, json={**base.get(path, {}), name: value})
                checked.append((path, name, 200 if admitted else 422, response.status_code))
    assert ("/api/suggest", "level", 422, 422) in checked and ("/api/suggest", "game", 200, 200) in checked
    assert [c for c in checked if c[2] != c[3]] == []


# ----------------------------------------------------------------------------- the review (docs/review.md)

WORDLE_SHARE = "Wordle 3/6\n\n⬛🟨⬛⬛⬛\n🟩🟨🟨⬛⬛\n🟩🟩🟩🟩🟩"
REVIEW_CASES = [
    ({"game": "wordle", "history": ["salet:BYBBB", "crane:GYYBB", "cigar:GGGGG"]},
     ["review", "--game", "wordle", "salet:BYBBB", "crane:GYYBB", "cigar:GGGGG"]),
    ({"game": "wordle", "guesses": ["salet", "crane", "cigar"], "answer": "cigar", "share": True},
     ["review", "--game", "wordle", "--answer", "cigar", "salet", "crane", "cigar", "--share"]),
    ({"game": "dueto", "guesses": ["tarso", "termo", "sorte"], "answer": "termo,sorte", "objective": "score"},
     ["review", "--game", "dueto", "--answer", "termo,sorte", "--objective", "score", "tarso", "termo", "sorte"]),
    ({"guesses": ["salet", "crane", "cigar"], "share_text": WORDLE_SHARE, "nodes": 5},
     ["review", "--share-text", "SHARE", "--nodes", "5", "salet", "crane", "cigar"]),
]


@pytest.mark.parametrize("body,args", REVIEW_CASES, ids=lambda x: json.dumps(x, ensure_ascii=True)[:40])
def test_review_equals_the_cli(client, capsys, tmp_path, body, args):
    """POST /api/review answers `termo review --json`: the per-turn values, the scores, the
    method and the share text in one answer (what the board's review panel reads)."""
    path = tmp_path / "share.txt"
    path.write_text(WORDLE_SHARE, encoding="utf-8")
    expected, _ = cli_json(capsys, [str(path) if a == "SHARE" else a for a in args])
    response = client.post("/api/review", json=body)
    assert response.status_code == 200, response.text
    assert response.json() == expected and list(response.json()) == list(expected)
    if not body.get("share"):
        turn = expected["turns"][0]
        assert {"guess", "cost", "verdict", "best", "luck", "luck_verdict", "method"} <= set(turn)
        assert {"skill", "luck_score", "verdict", "method", "total_cost", "share"} <= set(expected)


@pytest.mark.parametrize("body,args", [
    ({"game": "wordle", "guesses": ["salet"], "share_text": "Wordle 1/6\n\n🟩🟩🟩🟨🟩"},
     ["review", "--game", "wordle", "--share-text", "SHARE", "salet"]),
    ({"game": "wordle", "history": ["salet:BYBBB"], "share": True},
     ["review", "--game", "wordle", "salet:BYBBB", "--share"]),
])
def test_review_refusals_are_the_clis_line(client, capsys, tmp_path, body, args):
    path = tmp_path / "share.txt"
    path.write_text(body.get("share_text", ""), encoding="utf-8")
    message = cli_error(capsys, [str(path) if a == "SHARE" else a for a in args])
    response = client.post("/api/review", json=body)
    assert response.status_code == 422 and detail_of(response)["detail"] == message, response.text
