"""The catalogue's codes for warnings and for the reasons a suggestion gives, in en, pt, ru, and
`reason_message`, which reads a reason's English text back into its code and params.

The templates are a part of `termo.core.messages.CATALOGUE` (that module renders them).
"""

from __future__ import annotations

import re


REASONS: dict[str, dict[str, str]] = {
    # ---- warnings
    "warning.off_list": {
        "en": "{word} is not in the word list; its colours are still used to filter the candidates",
        "pt": "{word} não está na lista de palavras; as cores dela ainda filtram as candidatas",
        "ru": "слова {word} нет в списке; его цвета всё равно отсеивают кандидатов",
    },
    "warning.off_list_guess": {
        "en": "{word} is not in the guess list; its colours are still used to filter the candidates",
        "pt": "{word} não está na lista de tentativas; as cores dela ainda filtram as candidatas",
        "ru": "{word} нет в списке попыток; его цвета всё равно отсеивают кандидатов",
    },
    "warning.partition_off_list": {
        "en": "{word} is not in the {unit:list} list: its groups are computed answer by answer (it wins only when written as an answer)",
        "pt": "{word} não está na lista de {unit:list}: os grupos dela são calculados resposta a resposta (ela só vence escrita como uma resposta)",
        "ru": "{word} нет в списке {unit:list}: его группы считаются по одному ответу (он выигрывает, только если написан как ответ)",
    },
    # ---- reasons
    "reason.solved": {
        "en": "solved in {turn}/{tries}",
        "pt": "resolvido em {turn}/{tries}",
        "ru": "решено за {turn}/{tries}",
    },
    "reason.one_left": {
        "en": "only one candidate left",
        "pt": "resta só uma candidata",
        "ru": "остался один кандидат",
    },
    "reason.two_left": {
        "en": "only two candidates left: the more common one",
        "pt": "restam só duas candidatas: a mais comum",
        "ru": "осталось два кандидата: более частый из них",
    },
    "reason.last_turn": {
        "en": "last turn: the most common candidate",
        "pt": "última tentativa: a candidata mais comum",
        "ru": "последняя попытка: самый частый кандидат",
    },
    "reason.two_left_uniform": {
        "en": "only two candidates left, equally likely: the first one",
        "pt": "restam só duas candidatas, igualmente prováveis: a primeira",
        "ru": "осталось два равновероятных кандидата: первый из них",
    },
    "reason.last_turn_uniform": {
        "en": "last turn: a candidate (all are equally likely)",
        "pt": "última tentativa: uma candidata (todas são igualmente prováveis)",
        "ru": "последняя попытка: один из кандидатов (все равновероятны)",
    },
    "reason.late_turn_uniform": {
        "en": "turn {turn} with {m} candidates: a candidate (all are equally likely)",
        "pt": "tentativa {turn} com {m} candidatas: uma candidata (todas são igualmente prováveis)",
        "ru": "попытка {turn}, кандидатов {m}: один из кандидатов (все равновероятны)",
    },
    "reason.late_turn": {
        "en": "turn {turn} with {m} candidates: the most common one",
        "pt": "tentativa {turn} com {m} candidatas: a mais comum",
        "ru": "попытка {turn}, кандидатов {m}: самый частый",
    },
    "reason.entropy": {
        "en": "maximum entropy over {m} candidates",
        "pt": "entropia máxima sobre {m:p:candidata:candidatas}",
        "ru": "наибольшая энтропия среди {m:p:кандидата:кандидатов:кандидатов}",
    },
    "reason.entropy_hard": {
        "en": "maximum entropy over {m} candidates (hard mode: among the {legal} legal guesses)",
        "pt": "entropia máxima sobre {m:p:candidata:candidatas} (modo difícil: entre as {legal} tentativas permitidas)",
        "ru": "наибольшая энтропия среди {m:p:кандидата:кандидатов:кандидатов} (сложный режим: среди {legal} допустимых слов)",
    },
    "reason.letters": {
        "en": "most frequent letters among {m} candidates",
        "pt": "letras mais frequentes entre {m:p:candidata:candidatas}",
        "ru": "самые частые буквы среди {m:p:кандидата:кандидатов:кандидатов}",
    },
    "reason.symbols": {
        "en": "most frequent symbols among {m} candidates",
        "pt": "símbolos mais frequentes entre {m:p:candidata:candidatas}",
        "ru": "самые частые символы среди {m:p:кандидата:кандидатов:кандидатов}",
    },
    "reason.expected": {
        "en": "lowest expected number of guesses ({expected:.3f})",
        "pt": "menor número esperado de tentativas ({expected:.3f})",
        "ru": "наименьшее ожидаемое число попыток ({expected:.3f})",
    },
    "reason.expected_plain": {
        "en": "lowest expected number of guesses",
        "pt": "menor número esperado de tentativas",
        "ru": "наименьшее ожидаемое число попыток",
    },
    "reason.tree": {
        "en": "the stored strategy's move (instant, no search): {expected:.3f} guesses expected from here",
        "pt": "a jogada da estratégia guardada (instantânea, sem busca): {expected:.3f} tentativas esperadas daqui em diante",
        "ru": "ход сохранённой стратегии (мгновенно, без поиска): отсюда ожидается {expected:.3f} попытки",
    },
    "reason.default_opener": {
        "en": "the game's usual first word",
        "pt": "a primeira palavra de costume do jogo",
        "ru": "обычное первое слово игры",
    },
    "reason.default_is_optimum": {
        "en": "the game's usual first word, also the optimum ({reason})",
        "pt": "a primeira palavra de costume do jogo, que também é a ótima ({reason})",
        "ru": "обычное первое слово игры, оно же оптимальное ({reason})",
    },
    "reason.with_note": {
        "en": "{reason} ({note})",
        "pt": "{reason} ({note})",
        "ru": "{reason} ({note})",
    },
    "note.hard_opener": {
        "en": "hard mode changes nothing here: every first guess is allowed",
        "pt": "o modo difícil não muda nada aqui: qualquer primeira palavra é permitida",
        "ru": "сложный режим здесь ничего не меняет: первым можно сыграть любое слово",
    },
    "note.hard_level3": {
        "en": "hard mode: this guess among the {legal} allowed ones; later turns searched without the restriction, so the expected number is an estimate",
        "pt": "modo difícil: esta palavra entre as {legal} permitidas; as tentativas seguintes foram buscadas sem a restrição, então o número esperado é uma estimativa",
        "ru": "сложный режим: это слово выбрано среди {legal} допустимых; следующие попытки искались без ограничения, поэтому ожидаемое число — оценка",
    },
    "reason.optimum_not_interface": {
        "en": "{reason}; the optimum of these options, not the game's usual first word {opener} (choose the default opener to play {opener})",
        "pt": "{reason}; a ótima destas opções, não a primeira palavra de costume do jogo, {opener} (escolha a abertura padrão para jogar {opener})",
        "ru": "{reason}; оптимальное при этих настройках, а не обычное первое слово игры {opener} (выберите стандартное первое слово, чтобы сыграть {opener})",
    },
    "reason.interface_not_optimum": {
        "en": "{reason}; the game's usual first word, not the optimum of these options ({best}: choose the optimal opener to play it)",
        "pt": "{reason}; a primeira palavra de costume do jogo, não a ótima destas opções ({best}: escolha a abertura ótima para jogá-la)",
        "ru": "{reason}; обычное первое слово игры, а не оптимальное при этих настройках ({best}: выберите оптимальное первое слово, чтобы сыграть его)",
    },
    "reason.interface_maybe_not_optimum": {
        "en": "{reason}; the game's usual first word, not necessarily the optimum of these options (choose the optimal opener to play the optimum)",
        "pt": "{reason}; a primeira palavra de costume do jogo, não necessariamente a ótima destas opções (escolha a abertura ótima para jogar a ótima)",
        "ru": "{reason}; обычное первое слово игры, не обязательно оптимальное при этих настройках (выберите оптимальное первое слово, чтобы сыграть его)",
    },
    "reason.optimum_report": {
        "en": "{reason}; the optimum of these options; the game's usual first word is {opener}",
        "pt": "{reason}; a ótima destas opções; a primeira palavra de costume do jogo é {opener}",
        "ru": "{reason}; оптимальное при этих настройках; обычное первое слово игры — {opener}",
    },
}

# --------------------------------------------------------------------------- reading a reason back

_NUM = r"(-?[0-9]+(?:\.[0-9]+)?)"
_WORD = r"(\S+)"
_BASE_REASONS = [
    (r"solved in (\d+)/(\d+)", "reason.solved", ("turn", "tries")),
    (r"only one candidate left", "reason.one_left", ()),
    (r"only two candidates left: the more common one", "reason.two_left", ()),
    (r"last turn: the most common candidate", "reason.last_turn", ()),
    (r"turn (\d+) with (\d+) candidates: the most common one", "reason.late_turn", ("turn", "m")),
    (r"only two candidates left, equally likely: the first one", "reason.two_left_uniform", ()),
    (r"last turn: a candidate \(all are equally likely\)", "reason.last_turn_uniform", ()),
    (r"turn (\d+) with (\d+) candidates: a candidate \(all are equally likely\)", "reason.late_turn_uniform",
     ("turn", "m")),
    (r"maximum entropy over (\d+) candidates \(hard mode: among the (\d+) legal guesses\)",
     "reason.entropy_hard", ("m", "legal")),
    (r"maximum entropy over (\d+) candidates", "reason.entropy", ("m",)),
    (r"most frequent letters among (\d+) candidates", "reason.letters", ("m",)),
    (r"most frequent symbols among (\d+) candidates", "reason.symbols", ("m",)),
    (rf"lowest expected number of guesses \({_NUM}\)", "reason.expected", ("expected",)),
    (r"lowest expected number of guesses", "reason.expected_plain", ()),
    (rf"the stored \S+ tree's move \(instant, no search\): {_NUM} guesses expected from here on its path",
     "reason.tree", ("expected",)),
    (r"default opener \(the fixed first word\)", "reason.default_opener", ()),
]
_NOTES = [
    (r"hard mode changes nothing here: every first guess is legal", "note.hard_opener", ()),
    (r"hard mode: this guess among the (\d+) legal ones; later turns searched without the restriction, "
     r"so E is an estimate", "note.hard_level3", ("legal",)),
]
_SUFFIXES = [
    (rf"; the optimum of this configuration, not the game's interface opener {_WORD} "
     r"\(--opener default plays \S+\)", "reason.optimum_not_interface", ("opener",)),
    (rf"; the game's interface opener, not the optimum of this configuration \({_WORD}: "
     r"--opener optimal plays it, `termo opener` shows it\)", "reason.interface_not_optimum", ("best",)),
    (r"; the game's interface opener, not necessarily the optimum of this configuration "
     r"\(`termo opener` shows the optimum, --opener optimal plays it\)", "reason.interface_maybe_not_optimum", ()),
    (rf"; the optimum of this configuration; the game's interface opener is {_WORD} "
     r"\(what `termo suggest` plays first\)", "reason.optimum_report", ("opener",)),
]


def _value(name: str, text: str):
    if name == "expected":
        return float(text)
    return int(text) if text.lstrip("-").isdigit() else text


def reason_message(text: str):
    """``(code, params)`` of a suggestion's reason, read from its English text (the reasons of
    `termo.engine.level1`, `termo.engine.level2`, `termo.engine.solver`, `termo.book.openers` and `termo.interface.suggest`, with
    their notes and opener remarks); None for a text it does not know."""
    text = text.strip()
    for pattern, code, names in _SUFFIXES:
        m = re.search(pattern + r"$", text)
        if m:
            inner = reason_message(text[: m.start()])
            if inner is None:
                return None
            params = {"reason": {"code": inner[0], "params": inner[1]}}
            params.update((n, _value(n, v)) for n, v in zip(names, m.groups()))
            return code, params
    m = re.fullmatch(r"default opener, also the optimum \((.*)\)", text)
    if m:
        inner = reason_message(m.group(1))
        if inner is not None:
            return "reason.default_is_optimum", {"reason": {"code": inner[0], "params": inner[1]}}
    for pattern, code, names in _BASE_REASONS:
        m = re.fullmatch(pattern, text)
        if m:
            return code, {n: _value(n, v) for n, v in zip(names, m.groups())}
    for pattern, code, names in _NOTES:
        m = re.search(r" \(" + pattern + r"\)$", text)
        if m:
            inner = reason_message(text[: m.start()])
            if inner is None:
                return None
            note = {"code": code, "params": {n: _value(n, v) for n, v in zip(names, m.groups())}}
            return "reason.with_note", {"reason": {"code": inner[0], "params": inner[1]}, "note": note}
    return None
