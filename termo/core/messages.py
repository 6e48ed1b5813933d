"""The message catalogue: every user-facing error, reason and warning the library sends, by code,
in each board language (``en``, ``pt`` = pt-BR, ``ru``: `Game.language` values).

The command line keeps its own English lines (the text of a `TermoError`, a reason, a warning);
the catalogue says the same thing in the board's terms: tiles and colour names instead of
``GGGGY``, "the level" instead of ``--level``, ∞ instead of ``inf``, a decimal comma in pt and ru.

- `Message` is a ``str`` (the CLI's line, unchanged) that also carries ``code`` and ``params``;
  warnings are Messages, and `termo.core.errors.TermoError` carries the same two attributes.
- `render(code, params, lang)` is one finished sentence; `messages(code, params)` all three.
- every reason a solver gives is a `Message` built where it is decided (its code and params), so
  a board renders it in its language without reading English back.

The templates live by area in `termo.core.catalogue_input`, `termo.core.catalogue_equations`,
`termo.core.catalogue_reasons` (with the games whose colours are not honest) and
`termo.core.catalogue_share`; `CATALOGUE` joins them.

Params are plain JSON values. A param that is itself a message is ``{"code", "params"}`` and is
rendered in place. Template fields take a format spec of this module (see `_Formatter`):
``{n:p:letter:letters}`` a count with its noun (ru: three forms), ``{pattern:colours}`` a
pattern as colour names, ``{objective:objective}`` an objective of several boards, ``{name:option}`` an option's name, ``{x:.3f}`` / ``{x:num}`` / ``{x:,}``
numbers in the language's notation, ``{word:q}`` quoted text.
"""

from __future__ import annotations

import math
import string
from typing import Any, Mapping

from termo.core.catalogue_equations import EQUATIONS
from termo.core.catalogue_input import INPUT
from termo.core.catalogue_reasons import OBJECTIVE_NAMES, REASONS
from termo.core.catalogue_share import SHARE

LANGS = ("en", "pt", "ru")

# the catalogue, by area: what the input got wrong, Nerdle's equations, warnings and reasons
CATALOGUE: dict[str, dict[str, str]] = {**INPUT, **EQUATIONS, **REASONS, **SHARE}

# the names of the options a request sets, in each language
OPTION_NAMES = {
    "level": {"en": "the level", "pt": "o nível", "ru": "уровень"},
    "beam": {"en": "the search beam", "pt": "o feixe da busca", "ru": "ширина поиска"},
    "depth": {"en": "the search depth", "pt": "a profundidade da busca", "ru": "глубина поиска"},
    "list": {"en": "the number of candidates listed", "pt": "o número de candidatas listadas",
             "ru": "число показанных кандидатов"},
    "t": {"en": "the temperature T", "pt": "a temperatura T", "ru": "температура T"},
    "game": {"en": "the game", "pt": "o jogo", "ru": "игра"},
    "guess": {"en": "the guess", "pt": "a palavra", "ru": "слово"},
    "answer": {"en": "the answer", "pt": "a resposta", "ru": "ответ"},
    "opener": {"en": "the opener", "pt": "a abertura", "ru": "первое слово"},
    "top": {"en": "the number of rows", "pt": "o número de linhas", "ru": "число строк"},
    "n": {"en": "the number of answers", "pt": "o número de respostas", "ru": "число ответов"},
    "hard": {"en": "hard mode", "pt": "o modo difícil", "ru": "сложный режим"},
    "tree": {"en": "a stored strategy", "pt": "uma estratégia guardada", "ru": "сохранённая стратегия"},
    "no_tree": {"en": "the live search only", "pt": "só a busca ao vivo", "ru": "только живой поиск"},
    "objective": {"en": "the objective", "pt": "o objetivo", "ru": "цель"},
}
OPTION_FALLBACK = {"en": "the value {name}", "pt": "o valor {name}", "ru": "значение {name}"}

# a game's units (`Game.unit`), as counted nouns: en/pt (one, many), ru (one, few, many)
UNITS = {
    "letters": {"en": ("letter", "letters"), "pt": ("letra", "letras"), "ru": ("буква", "буквы", "букв")},
    "symbols": {"en": ("symbol", "symbols"), "pt": ("símbolo", "símbolos"), "ru": ("символ", "символа", "символов")},
}
# the list a unit's guesses come from ({unit:list})
UNIT_LISTS = {
    "letters": {"en": "word", "pt": "palavras", "ru": "слов"},
    "symbols": {"en": "guess", "pt": "tentativas", "ru": "попыток"},
}

# tile colours: G correct, Y present, B absent; Nerdle's present tile is purple, its absent black
COLOUR_NAMES = {
    "en": {"G": "green", "Y": "yellow", "B": "grey"},
    "pt": {"G": "verde", "Y": "amarelo", "B": "cinza"},
    "ru": {"G": "зелёный", "Y": "жёлтый", "B": "серый"},
}
NERDLE_COLOUR_NAMES = {
    "en": {"G": "green", "Y": "purple", "B": "black"},
    "pt": {"G": "verde", "Y": "roxo", "B": "preto"},
    "ru": {"G": "зелёный", "Y": "фиолетовый", "B": "чёрный"},
}
QUOTES = {"en": ("“", "”"), "pt": ("“", "”"), "ru": ("«", "»")}
DECIMAL = {"en": ".", "pt": ",", "ru": ","}
THOUSANDS = {"en": ",", "pt": ".", "ru": "\u00a0"}


def colour_names(lang: str, game: str | None = None) -> dict[str, str]:
    """G/Y/B to the colour names of ``game`` (a registry name; Nerdle's are its own)."""
    table = NERDLE_COLOUR_NAMES if (game or "").startswith("nerdle") else COLOUR_NAMES
    return table.get(lang, table["en"])


def plural_index(n: int, lang: str) -> int:
    """Which form of a counted noun: en/pt 0 (one) or 1 (other); ru 0 (one), 1 (few), 2 (many)."""
    n = abs(int(n))
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return 0
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return 1
        return 2
    if lang == "pt":
        return 0 if n in (0, 1) else 1
    return 0 if n == 1 else 1


def plural(n: int, forms, lang: str) -> str:
    """The form of ``forms`` (one, other[, many]) for ``n`` in ``lang``."""
    forms = tuple(forms)
    return forms[min(plural_index(n, lang), len(forms) - 1)]


def counted(n: int, one: str, many: str | None = None, grouped: bool = False) -> str:
    """``n`` and its English noun, singular for 1 (the CLI's lines): ``counted(1, "letter")``
    is "1 letter", ``counted(2, "letter")`` "2 letters"; ``grouped`` writes 1,234."""
    noun = one if n == 1 else (many if many is not None else one + "s")
    return f"{n:,} {noun}" if grouped else f"{n} {noun}"


def unit_count(n: int, unit: str) -> str:
    """``n`` tiles in a game's unit (`Game.unit`, "letters" or "symbols"): "1 letter", "5 letters"."""
    return counted(n, unit[:-1] if unit.endswith("s") else unit, unit)


def format_number(value, lang: str, spec: str = "") -> str:
    """A number as ``lang`` writes it: a decimal comma in pt and ru, ∞ for infinity, the
    language's thousands separator for a ``,`` spec."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, float) and math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if isinstance(value, float) and not spec:
        text = f"{value:g}" if value.is_integer() or abs(value) >= 1e6 or abs(value) < 1e-4 else repr(value)
    else:
        text = format(value, spec)
    # swap the separators through a placeholder (en writes 1,234.5; pt 1.234,5; ru 1 234,5)
    return text.replace(",", "\0").replace(".", DECIMAL[lang]).replace("\0", THOUSANDS[lang])


def is_message(value) -> bool:
    return isinstance(value, Mapping) and "code" in value and "params" in value


class _Formatter(string.Formatter):
    def __init__(self, lang: str, params: Mapping[str, Any]) -> None:
        self.lang = lang
        self.params = params

    def format_field(self, value, spec: str) -> str:
        lang = self.lang
        if is_message(value):
            return render(value["code"], value["params"], lang, outer=self.params)
        if isinstance(value, Message):
            return render(value.code, value.params, lang, outer=self.params)
        if spec.startswith("p:"):
            return f"{format_number(value, lang)} {plural(value, spec[2:].split(':'), lang)}"
        if spec == "unit":
            unit = UNITS.get(self.params.get("unit", "letters"), UNITS["letters"])[lang]
            return f"{format_number(value, lang)} {plural(value, unit, lang)}"
        if spec == "list":
            return UNIT_LISTS.get(str(value), UNIT_LISTS["letters"])[lang]
        if spec == "colours":
            names = colour_names(lang, self.params.get("game"))
            return ", ".join(names.get(ch, ch) for ch in str(value))
        if spec == "objective":
            return OBJECTIVE_NAMES.get(str(value), {}).get(lang, str(value))
        if spec == "option":
            entry = OPTION_NAMES.get(str(value))
            return entry[lang] if entry else OPTION_FALLBACK[lang].format(name=value)
        if spec == "q":
            left, right = QUOTES[lang]
            return f"{left}{value}{right}"
        if spec == "num" or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            return format_number(value, lang, "" if spec == "num" else spec)
        if isinstance(value, (list, tuple)):
            return ", ".join(str(v) for v in value)
        return format(value, spec)

    def get_value(self, key, args, kwargs):
        if key in ("present", "absent"):  # the colour names of the game in the sentence
            names = colour_names(self.lang, kwargs.get("game"))
            return kwargs.get(key, names["Y" if key == "present" else "B"])
        return kwargs[key]


def render(code: str, params: Mapping[str, Any] | None = None, lang: str = "en",
           outer: Mapping[str, Any] | None = None) -> str:
    """The sentence of ``code`` in ``lang`` (en for an unknown language). A nested message sees
    its parent's ``game`` (for colour names) unless it has its own."""
    params = dict(params or {})
    if outer and "game" in outer and "game" not in params:
        params["game"] = outer["game"]
    entry = CATALOGUE[code]
    lang = lang if lang in entry else "en"
    return _Formatter(lang, params).vformat(entry[lang], (), params)


def messages(code: str, params: Mapping[str, Any] | None = None) -> dict[str, str]:
    """``{"en", "pt", "ru"}`` renderings of ``code`` (lower-case sentences, like the CLI's)."""
    return {lang: render(code, params, lang) for lang in LANGS}


def placeholders(template: str) -> set[str]:
    """The field names of a template (for the catalogue's own test)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def jsonable_params(params: Mapping[str, Any]) -> dict:
    """``params`` with nested Messages as ``{"code", "params"}`` (plain JSON)."""
    out = {}
    for key, value in params.items():
        if isinstance(value, Message):
            value = value.as_json()
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out


class Message(str):
    """The CLI's English line (this string, unchanged) with its catalogue ``code`` and ``params``."""

    code: str
    params: dict

    def __new__(cls, text: str, code: str, **params):
        obj = super().__new__(cls, text)
        obj.code = code
        obj.params = params
        return obj

    def __reduce__(self):  # the worker processes send Messages back through pickle
        return (_message, (str(self), self.code, self.params))

    def as_json(self) -> dict:
        return {"code": self.code, "params": jsonable_params(self.params)}

    def messages(self) -> dict[str, str]:
        return messages(self.code, self.params)


def with_note(reason, note) -> Message:
    """``reason (note)``: the reason and its note nested in one coded message (`reason.with_note`)."""
    return Message(f"{reason} ({note})", "reason.with_note", reason=reason, note=note)


def _message(text: str, code: str, params: dict) -> Message:
    return Message(text, code, **params)


def message_of(text) -> dict | None:
    """``{"code", "params"}`` of a library sentence (a `Message`); None when it has no code."""
    return text.as_json() if isinstance(text, Message) else None


def nested(text):
    """A sentence as a param of another message: its ``{"code", "params"}``, or the text itself
    when it has no code (rendered as it is)."""
    found = message_of(text)
    return str(text) if found is None else found


def messages_of(text) -> dict[str, str] | None:
    """The three renderings of a library sentence (None when it has no code)."""
    return text.messages() if isinstance(text, Message) else None
