"""``/docs``: the API description as one self-contained page, rendered from the app's OpenAPI
document on the server (no script, nothing fetched from outside: it works offline, unlike the
framework's Swagger page, which loads its script from a CDN). ``/openapi.json`` stays the
machine-readable description."""

from __future__ import annotations

import html
import json
import re

STYLE = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:1rem auto;padding:0 1rem;line-height:1.4}"
         "h2{font-size:1.05rem;margin-top:1.6rem}code,pre{background:#f3f3f3;border-radius:4px}"
         "pre{padding:.5rem;overflow-x:auto;font-size:.85rem}.m{font-weight:bold;text-transform:uppercase}")


def _schema_text(schema: dict, components: dict) -> str:
    ref = schema.get("$ref", "")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        return name + " " + json.dumps(components.get(name, {}).get("properties", {}), indent=1, sort_keys=True)
    return json.dumps(schema, indent=1, sort_keys=True)


def _text(text: str) -> str:
    """A docstring's reStructuredText as HTML: paragraphs, ``literals`` and `references` as code,
    **strong**; the rest escaped (no raw markup on the page)."""
    out = []
    for para in re.split(r"\n\s*\n", text.strip()):
        escaped = html.escape(" ".join(para.split()))
        escaped = re.sub(r"``(.+?)``", r"<code>\1</code>", escaped)
        escaped = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)
        escaped = re.sub(r"(?<![\w`])`([^`]+?)`(?:_)?(?![\w`])", r"<code>\1</code>", escaped)
        escaped = re.sub(r":\w+:<code>", "<code>", escaped)  # :func:`x`, :class:`x`
        out.append(f"<p>{escaped}</p>")
    return "".join(out)


def render(spec: dict) -> str:
    """The HTML page of an OpenAPI document: each operation, its parameters and its body."""
    components = spec.get("components", {}).get("schemas", {})
    parts = [f"<!doctype html><html lang=\"en\"><meta charset=\"utf-8\">"
             f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
             f"<title>{html.escape(spec['info']['title'])} API</title><style>{STYLE}</style>"
             f"<p><a href=\"/\">&larr; Back to the boards</a></p>"
             f"<h1>{html.escape(spec['info']['title'])} {html.escape(spec['info'].get('version', ''))} API</h1>"
             f"{_text(spec['info'].get('description', ''))}"
             f"<p>Machine-readable: <a href=\"/openapi.json\">/openapi.json</a>.</p>"]
    for path, operations in sorted(spec.get("paths", {}).items()):
        for method, op in operations.items():
            parts.append(f"<h2><span class=\"m\">{html.escape(method)}</span> <code>{html.escape(path)}</code></h2>")
            text = op.get("description") or op.get("summary") or ""
            if text:
                parts.append(_text(text))
            params = [f"<code>{html.escape(p['name'])}</code> ({html.escape(p.get('in', ''))})"
                      for p in op.get("parameters", [])]
            if params:
                parts.append("<p>Parameters: " + ", ".join(params) + "</p>")
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                parts.append(f"<p>JSON body:</p><pre>{html.escape(_schema_text(body, components))}</pre>")
    return "".join(parts) + "</html>"
