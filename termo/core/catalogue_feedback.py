"""The catalogue's codes of the games whose colours are not one honest answer's (docs/rules.md
§13): the adversary's (Absurdle) and the lying rows' (Fibble) reasons and errors, in en, pt, ru.

The templates are a part of `termo.core.messages.CATALOGUE` (that module renders them).
"""

from __future__ import annotations

FEEDBACK: dict[str, dict[str, str]] = {
    # ---- the adversary (Absurdle)
    "adversary.colours": {
        "en": "the game colours {word} {pattern:colours} here, not {typed:colours}: its colours are its own",
        "pt": "o jogo colore {word} assim: {pattern:colours}, não {typed:colours}: as cores são dele",
        "ru": "игра раскрашивает {word} так: {pattern:colours}, а не {typed:colours}: цвета выбирает она",
    },
    "reason.adversary_last": {
        "en": "the last answer left: it wins",
        "pt": "a última resposta que resta: ela vence",
        "ru": "остался последний ответ: он выигрывает",
    },
    "reason.adversary_smallest": {
        "en": "the game keeps at most {size} of the {n} answers left (the smallest group it can keep)",
        "pt": "o jogo fica com no máximo {size} das {n} respostas que restam (o menor grupo que ele pode manter)",
        "ru": "игра оставит не больше {size} из {n} оставшихся ответов (наименьшая группа, которую она может оставить)",
    },
    "reason.adversary_no_force": {
        "en": "no forced win within {depth} guesses found from here: the smallest group the game can keep, {size} of {n}",
        "pt": "nenhuma vitória forçada em até {depth} tentativas a partir daqui: o menor grupo que o jogo pode manter, {size} de {n}",
        "ru": "отсюда нет вынужденной победы за {depth} попытки: наименьшая группа, которую может оставить игра, — {size} из {n}",
    },
    "reason.adversary_forced": {
        "en": "forces a win in {guesses} guesses from here, the fewest (proved over every guess; {ways} of its continuations win so)",
        "pt": "força a vitória em {guesses} tentativas a partir daqui, o mínimo (provado sobre todas as palavras; {ways} das continuações vencem assim)",
        "ru": "вынуждает победу за {guesses} попытки отсюда, меньше нельзя (доказано перебором всех слов; так выигрывают {ways} продолжений)",
    },
    "reason.adversary_opener": {
        "en": "{word} forces a win in {guesses} guesses (proved from the group it leaves; no first word forces one in fewer)",
        "pt": "{word} força a vitória em {guesses} tentativas (provado a partir do grupo que ela deixa; nenhuma primeira palavra força em menos)",
        "ru": "{word} вынуждает победу за {guesses} попытки (доказано от оставленной группы; ни одно первое слово не даёт меньше)",
    },
    "reason.adversary_opener_open": {
        "en": "{word}: the game's first word; no forced win within {guesses} guesses found from it",
        "pt": "{word}: a primeira palavra do jogo; nenhuma vitória forçada em até {guesses} tentativas a partir dela",
        "ru": "{word}: первое слово игры; вынужденной победы за {guesses} попытки от него не найдено",
    },
    # ---- rows that lie (Fibble)
    "reason.lies_entropy": {
        "en": "the most information about the answer, lies counted: {bits:.3f} bits",
        "pt": "a maior informação sobre a resposta, contando as mentiras: {bits:.3f} bits",
        "ru": "больше всего сведений об ответе с учётом лжи: {bits:.3f} бита",
    },
    "reason.lies_two_left": {
        "en": "two candidates left: the likelier one ({share:.0%}); if it is not the answer, the other is",
        "pt": "restam duas candidatas: a mais provável ({share:.0%}); se não for a resposta, é a outra",
        "ru": "осталось два кандидата: более вероятный ({share:.0%}); если это не ответ, то ответ — другой",
    },
    "reason.lies_likeliest": {
        "en": "{n} candidates left: the likeliest ({share:.0%})",
        "pt": "restam {n} candidatas: a mais provável ({share:.0%})",
        "ru": "осталось кандидатов: {n}; самый вероятный ({share:.0%})",
    },
    "reason.lies_expected": {
        "en": "the fewest guesses expected, lies counted: {expected:.3f} (one row looked ahead, then estimated)",
        "pt": "o menor número esperado de tentativas, contando as mentiras: {expected:.3f} (uma linha à frente, depois estimado)",
        "ru": "наименьшее ожидаемое число попыток с учётом лжи: {expected:.3f} (на строку вперёд, дальше оценка)",
    },
    "reason.lies_opener": {
        "en": "{word}: the game's first word ({bits:.3f} bits, lies counted)",
        "pt": "{word}: a primeira palavra do jogo ({bits:.3f} bits, contando as mentiras)",
        "ru": "{word}: первое слово игры ({bits:.3f} бита с учётом лжи)",
    },
    "review.feedback_model": {
        "en": "{game}: a review weighs each guess against honest colours, and this game's are not",
        "pt": "{game}: a revisão avalia cada palpite com cores honestas, e as deste jogo não são",
        "ru": "{game}: разбор оценивает ходы при честных цветах, а в этой игре они не такие",
    },
    "option.feedback_model": {
        "en": "{option:option} is not taken by {game}: its colours are not one honest answer's",
        "pt": "{option:option} não vale para {game}: as cores dele não são as de uma resposta honesta",
        "ru": "{option:option} не подходит для {game}: его цвета — не честный ответ",
    },
}
