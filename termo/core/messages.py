"""The message catalogue: every user-facing error, reason and warning the library sends, by code,
in each board language (``en``, ``pt`` = pt-BR, ``ru``: `Game.language` values).

The command line keeps its own English lines (the text of a `TermoError`, a reason, a warning);
the catalogue says the same thing in the board's terms: tiles and colour names instead of
``GGGGY``, "the level" instead of ``--level``, ∞ instead of ``inf``, a decimal comma in pt and ru.

- `Message` is a ``str`` (the CLI's line, unchanged) that also carries ``code`` and ``params``;
  warnings are Messages, and `termo.core.errors.TermoError` carries the same two attributes.
- `render(code, params, lang)` is one finished sentence; `messages(code, params)` all three.
- `reason_message(text)` reads a suggestion's reason (also one stored in an opener table, where
  only the text survives) back into ``(code, params)``.

Params are plain JSON values. A param that is itself a message is ``{"code", "params"}`` and is
rendered in place. Template fields take a format spec of this module (see `_Formatter`):
``{n:p:letter:letters}`` a count with its noun (ru: three forms), ``{pattern:colours}`` a
pattern as colour names, ``{name:option}`` an option's name, ``{x:.3f}`` / ``{x:num}`` / ``{x:,}``
numbers in the language's notation, ``{word:q}`` quoted text.
"""

from __future__ import annotations

import math
import re
import functools
import string
from typing import Any, Mapping

LANGS = ("en", "pt", "ru")

# --------------------------------------------------------------------------- the catalogue

CATALOGUE: dict[str, dict[str, str]] = {
    # ---- the server's own refusals (web/app.py): a malformed request, a busy or failing server
    "request.too_large": {
        "en": "the request is larger than {kib} KiB",
        "pt": "o pedido tem mais de {kib} KiB",
        "ru": "запрос больше {kib} КиБ",
    },
    "request.field": {
        "en": "the request is not valid: check the field {field:q}",
        "pt": "o pedido não é válido: confira o campo {field:q}",
        "ru": "запрос недопустим: проверьте поле {field:q}",
    },
    "request.body": {
        "en": "the request could not be read",
        "pt": "não foi possível ler o pedido",
        "ru": "не удалось прочитать запрос",
    },
    "request.not_found": {
        "en": "there is nothing at this address",
        "pt": "não há nada neste endereço",
        "ru": "по этому адресу ничего нет",
    },
    "request.method": {
        "en": "this address does not answer that kind of request",
        "pt": "este endereço não responde a esse tipo de pedido",
        "ru": "этот адрес не отвечает на такой запрос",
    },
    "server.busy": {
        "en": "the server is busy; try again in a moment",
        "pt": "o servidor está ocupado; tente de novo em instantes",
        "ru": "сервер занят; попробуйте ещё раз через мгновение",
    },
    "server.worker_stopped": {
        "en": "a search stopped on the server and is being restarted; try again",
        "pt": "uma busca parou no servidor e está sendo reiniciada; tente de novo",
        "ru": "поиск на сервере остановился и перезапускается; попробуйте ещё раз",
    },
    "server.internal": {
        "en": "the server could not answer this request",
        "pt": "o servidor não conseguiu responder a este pedido",
        "ru": "сервер не смог ответить на этот запрос",
    },
    # ---- history items and rounds
    "history.bad_item": {
        "en": "{item:q} is not a round: type a guess and colour its tiles",
        "pt": "{item:q} não é uma rodada: digite uma palavra e pinte as letras",
        "ru": "{item:q} — не ход: наберите слово и раскрасьте клетки",
    },
    "history.round": {
        "en": "round {round} ({guess}): {error}",
        "pt": "rodada {round} ({guess}): {error}",
        "ru": "ход {round} ({guess}): {error}",
    },
    "history.round_empty": {
        "en": "round {round} ({guess}) leaves no candidate: check the colours, or the answer is not in the word list; the round was not applied",
        "pt": "a rodada {round} ({guess}) não deixa nenhuma candidata: confira as cores, ou a resposta não está na lista de palavras; a rodada não foi aplicada",
        "ru": "ход {round} ({guess}) не оставляет ни одного кандидата: проверьте цвета, или ответа нет в списке слов; ход не применён",
    },
    "history.too_long": {
        "en": "the history has {n:,} rounds; at most {max:,} are accepted",
        "pt": "o histórico tem {n:,} rodadas; no máximo {max:,} são aceitas",
        "ru": "в истории {n:,} ходов; принимается не больше {max:,}",
    },
    "history.item_type": {
        "en": "round {number} must be a guess with its colours",
        "pt": "a rodada {number} deve ser uma palavra com as suas cores",
        "ru": "ход {number} должен быть словом с его цветами",
    },
    "history.item_too_long": {
        "en": "round {number} is too long: {n:p:character:characters}, at most {max:,}",
        "pt": "a rodada {number} é longa demais: {n:p:caractere:caracteres}, no máximo {max:,}",
        "ru": "ход {number} слишком длинный: {n:p:символ:символа:символов}, не больше {max:,}",
    },
    "game.unknown": {
        "en": "there is no game called {name:q}; the games are {choices}",
        "pt": "não existe o jogo {name:q}; os jogos são {choices}",
        "ru": "игры {name:q} нет; есть игры {choices}",
    },
    "game.won": {
        "en": "the game is already won: undo or start a new game",
        "pt": "o jogo já foi ganho: volte uma rodada ou comece um novo jogo",
        "ru": "игра уже выиграна: отмените ход или начните новую игру",
    },
    "game.over": {
        "en": "the game is over: all {tries} tries were played, there is no try {next} to suggest",
        "pt": "o jogo acabou: as {tries} tentativas foram usadas, não há tentativa {next} para sugerir",
        "ru": "игра окончена: все {tries} попыток сыграны, попытки {next} нет",
    },
    "game.no_candidate": {
        "en": "no candidate is left",
        "pt": "não resta nenhuma candidata",
        "ru": "не осталось ни одного кандидата",
    },
    # ---- guesses
    "guess.empty": {
        "en": "the guess is empty",
        "pt": "a palavra está vazia",
        "ru": "слово пустое",
    },
    "guess.length": {
        "en": "{word} has {n:unit}; a guess here has {expected:unit}",
        "pt": "{word} tem {n:unit}; aqui uma tentativa tem {expected:unit}",
        "ru": "в {word} {n:unit}; здесь в попытке {expected:unit}",
    },
    "answer.length": {
        "en": "the answer {word} has {n:unit}; an answer here has {expected:unit}",
        "pt": "a resposta {word} tem {n:unit}; aqui uma resposta tem {expected:unit}",
        "ru": "в ответе {word} {n:unit}; здесь в ответе {expected:unit}",
    },
    "guess.not_letters": {
        "en": "{word} is not a word: use letters only",
        "pt": "{word} não é uma palavra: use só letras",
        "ru": "{word} — не слово: используйте только буквы",
    },
    "guess.symbol": {
        "en": "{word}: {char:q} is not a symbol of {game} (use {symbols})",
        "pt": "{word}: {char:q} não é um símbolo de {game} (use {symbols})",
        "ru": "{word}: {char:q} — не символ игры {game} (используйте {symbols})",
    },
    "guess.letter": {
        "en": "{word}: {char:q} is not a letter of {game} (use letters only)",
        "pt": "{word}: {char:q} não é uma letra de {game} (use só letras)",
        "ru": "{word}: {char:q} — не буква игры {game} (используйте только буквы)",
    },
    "guess.latin": {
        "en": "{word}: {char:q} is a Latin letter; {game} is played with Cyrillic letters",
        "pt": "{word}: {char:q} é uma letra latina; {game} se joga com letras cirílicas",
        "ru": "{word}: {char:q} — латинская буква; в {game} играют кириллицей",
    },
    "answer.invalid": {
        "en": "{word} is not a valid answer: {why}",
        "pt": "{word} não é uma resposta válida: {why}",
        "ru": "{word} — недопустимый ответ: {why}",
    },
    "guess.latin_lookalike": {
        "en": "{word}: {char:q} is a Latin letter that looks like the Cyrillic {cyrillic:q}; type the Cyrillic one",
        "pt": "{word}: {char:q} é uma letra latina parecida com a cirílica {cyrillic:q}; digite a cirílica",
        "ru": "{word}: {char:q} — латинская буква, похожая на кириллическую {cyrillic:q}; наберите кириллическую",
    },
    "guess.invalid": {
        "en": "{word} is not a valid guess: {why}",
        "pt": "{word} não é uma tentativa válida: {why}",
        "ru": "{word} — недопустимая попытка: {why}",
    },
    "guess.why.letters_only": {
        "en": "use letters only",
        "pt": "use só letras",
        "ru": "используйте только буквы",
    },
    "guess.is_round": {
        "en": "{guess} with its colours is a round, not a guess: the guess to split the candidates by is missing",
        "pt": "{guess} com as cores é uma rodada, não uma palavra: falta a palavra que divide as candidatas",
        "ru": "{guess} с цветами — это ход, а не слово: не указано слово, которым делить кандидатов",
    },
    # ---- colours
    "colours.bad_char": {
        "en": "{char:q} is not a colour; the colours are green, {present} and {absent}",
        "pt": "{char:q} não é uma cor; as cores são verde, {present} e {absent}",
        "ru": "{char:q} — не цвет; цвета: зелёный, {present} и {absent}",
    },
    "colours.count": {
        "en": "{n:p:colour is:colours are} given for {expected:p:tile:tiles}",
        "pt": "{n:p:cor foi dada:cores foram dadas} para {expected:p:letra:letras}",
        "ru": "задано {n:p:цвет:цвета:цветов} для {expected:p:клетки:клеток:клеток}",
    },
    "colours.impossible": {
        "en": "the colours of {word} ({pattern:colours}) are impossible: {why}",
        "pt": "as cores de {word} ({pattern:colours}) são impossíveis: {why}",
        "ru": "цвета слова {word} ({pattern:colours}) невозможны: {why}",
    },
    "colours.why.length": {
        "en": "the guess and its colours must both have {n:p:tile:tiles}",
        "pt": "a palavra e as cores precisam ter {n:p:letra:letras}",
        "ru": "в слове и в цветах должно быть по {n:p:клетке:клетки:клеток}",
    },
    "colours.why.absent_then_present": {
        "en": "{letter:q} is absent on one tile and present on a tile further right; the game colours the leftmost copy first",
        "pt": "{letter:q} está ausente numa letra e presente em outra mais à direita; o jogo pinta primeiro a cópia mais à esquerda",
        "ru": "{letter:q} отмечена как отсутствующая, а правее — как присутствующая; игра окрашивает сначала левую копию",
    },
    "colours.why.too_many_present": {
        "en": "more {present} tiles than free positions",
        "pt": "mais letras em {present} do que posições livres",
        "ru": "клеток цвета «{present}» больше, чем свободных позиций",
    },
    "colours.why.no_room": {
        "en": "the {present} tiles have no other free position to go to",
        "pt": "as letras em {present} não têm outra posição livre para onde ir",
        "ru": "клеткам цвета «{present}» некуда переместиться: других свободных позиций нет",
    },
    # ---- hard mode
    "hard.not_allowed": {
        "en": "hard mode: {word} is not allowed: {why}",
        "pt": "modo difícil: {word} não é permitida: {why}",
        "ru": "сложный режим: {word} не допускается: {why}",
    },
    "hard.why.length": {
        "en": "a guess has {n:unit}, not {got}",
        "pt": "uma palavra tem {n:unit}, não {got}",
        "ru": "в слове {n:unit}, а не {got}",
    },
    "hard.why.position": {
        "en": "tile {pos} must be {symbol:q}",
        "pt": "a posição {pos} deve ser {symbol:q}",
        "ru": "на позиции {pos} должна стоять {symbol:q}",
    },
    "hard.why.contain": {
        "en": "it must contain {symbol:q}",
        "pt": "ela precisa conter {symbol:q}",
        "ru": "в нём должна быть {symbol:q}",
    },
    "hard.why.at_least": {
        "en": "it needs {symbol:q} at least {n} times",
        "pt": "ela precisa de {symbol:q} pelo menos {n:p:vez:vezes}",
        "ru": "в нём {symbol:q} должна встретиться не меньше {n:p:раза:раз:раз}",
    },
    "hard.no_guess": {
        "en": "hard mode: no guess of the word list keeps to the rule",
        "pt": "modo difícil: nenhuma palavra da lista segue a regra",
        "ru": "сложный режим: ни одно слово из списка не подходит под правило",
    },
    # ---- options
    "option.integer": {
        "en": "{name:option} must be a whole number, not {value:q}",
        "pt": "{name:option} deve ser um número inteiro, não {value:q}",
        "ru": "{name:option}: нужно целое число, а не {value:q}",
    },
    "option.at_least": {
        "en": "{name:option} must be at least {low:,}, not {value:,}",
        "pt": "{name:option} deve ser pelo menos {low:,}, não {value:,}",
        "ru": "{name:option}: нужно не меньше {low:,}, а не {value:,}",
    },
    "option.at_most": {
        "en": "{name:option} must be at most {high:,}, not {value:,}",
        "pt": "{name:option} deve ser no máximo {high:,}, não {value:,}",
        "ru": "{name:option}: нужно не больше {high:,}, а не {value:,}",
    },
    "option.level": {
        "en": "the level must be 1, 2 or 3, not {value}",
        "pt": "o nível deve ser 1, 2 ou 3, não {value}",
        "ru": "уровень должен быть 1, 2 или 3, а не {value}",
    },
    "option.opener": {
        "en": "the opener must be the game's default or the optimum, not {value:q}",
        "pt": "a abertura deve ser a padrão do jogo ou a ótima, não {value:q}",
        "ru": "первое слово может быть только стандартным для игры или оптимальным, а не {value:q}",
    },
    "option.beam_probes": {
        "en": "the search beam must be at most {high:,} (the guesses {game} has), not {value:,}",
        "pt": "o feixe da busca deve ser no máximo {high:,} (as palavras que {game} tem), não {value:,}",
        "ru": "ширина поиска должна быть не больше {high:,} (столько слов в игре {game}), а не {value:,}",
    },
    "option.beam_memory": {
        "en": "the search beam must be at most {high:,} (the search's memory grows with it), not {value:,}",
        "pt": "o feixe da busca deve ser no máximo {high:,} (a memória da busca cresce com ele), não {value:,}",
        "ru": "ширина поиска должна быть не больше {high:,} (с ней растёт память поиска), а не {value:,}",
    },
    "option.depth_tries": {
        "en": "the search depth must be at most {high} ({game} has {tries} tries: the search cannot look past the last one), not {value:,}",
        "pt": "a profundidade da busca deve ser no máximo {high} ({game} tem {tries} tentativas: a busca não vê além da última), não {value:,}",
        "ru": "глубина поиска должна быть не больше {high} (в игре {game} {tries:p:попытка:попытки:попыток}: поиск не заглядывает дальше последней), а не {value:,}",
    },
    "option.text_type": {
        "en": "{name:option} must be text",
        "pt": "{name:option} deve ser um texto",
        "ru": "{name:option}: нужен текст",
    },
    "option.too_long": {
        "en": "{name:option} is too long: {n:p:character:characters}, at most {max:,}",
        "pt": "{name:option} é longo demais: {n:p:caractere:caracteres}, no máximo {max:,}",
        "ru": "{name:option}: слишком длинно — {n:p:символ:символа:символов}, не больше {max:,}",
    },
    "temperature.not_number": {
        "en": "the temperature T {text:q} is not a number (use e.g. 1, 0.5 or ∞)",
        "pt": "a temperatura T {text:q} não é um número (use por exemplo 1, 0,5 ou ∞)",
        "ru": "температура T {text:q} — не число (например, 1, 0,5 или ∞)",
    },
    "temperature.positive": {
        "en": "the temperature T must be positive (or ∞ for a uniform prior), not {value:num}",
        "pt": "a temperatura T deve ser positiva (ou ∞ para uma priori uniforme), não {value:num}",
        "ru": "температура T должна быть положительной (или ∞ для равномерного априори), а не {value:num}",
    },
    "temperature.underflow": {
        "en": "the temperature T {text} is too small to be told from 0; use a T of at least 5e-324",
        "pt": "a temperatura T {text} é pequena demais para se distinguir de 0; use T de pelo menos 5e-324",
        "ru": "температура T {text} слишком мала, она неотличима от 0; возьмите T не меньше 5e-324",
    },
    "partition.won": {
        "en": "the history ends with a win: no candidates are left to split",
        "pt": "o histórico termina com uma vitória: não restam candidatas para dividir",
        "ru": "история заканчивается победой: делить больше некого",
    },
    # ---- equations (Nerdle)
    "eq.length": {
        "en": "an equation here has {n} symbols, not {got}",
        "pt": "aqui uma equação tem {n} símbolos, não {got}",
        "ru": "здесь в равенстве {n:p:символ:символа:символов}, а не {got}",
    },
    "eq.symbol": {
        "en": "{char:q} is not a Nerdle symbol (use 0-9 + - * / =)",
        "pt": "{char:q} não é um símbolo do Nerdle (use 0-9 + - * / =)",
        "ru": "{char:q} — не символ Nerdle (используйте 0-9 + - * / =)",
    },
    "eq.one_equals": {
        "en": "an equation needs exactly one '='",
        "pt": "uma equação precisa de exatamente um '='",
        "ru": "в равенстве должен быть ровно один знак '='",
    },
    "eq.empty_left": {
        "en": "nothing before '='",
        "pt": "nada antes do '='",
        "ru": "перед '=' ничего нет",
    },
    "eq.empty_right": {
        "en": "nothing after '='",
        "pt": "nada depois do '='",
        "ru": "после '=' ничего нет",
    },
    "eq.value": {
        "en": "the left side is {value}, not {target}",
        "pt": "o lado esquerdo vale {value}, não {target}",
        "ru": "левая часть равна {value}, а не {target}",
    },
    "eq.leading_zero": {
        "en": "leading zero in {number}",
        "pt": "zero à esquerda em {number}",
        "ru": "ведущий ноль в {number}",
    },
    "eq.unary": {
        "en": "no unary signs: {sign:q} before a number",
        "pt": "sem sinais unários: {sign:q} antes de um número",
        "ru": "унарные знаки запрещены: {sign:q} перед числом",
    },
    "eq.left_ends": {
        "en": "the left side ends with {symbol:q}",
        "pt": "o lado esquerdo termina com {symbol:q}",
        "ru": "левая часть заканчивается на {symbol:q}",
    },
    "eq.left_starts": {
        "en": "the left side starts with {symbol:q}",
        "pt": "o lado esquerdo começa com {symbol:q}",
        "ru": "левая часть начинается с {symbol:q}",
    },
    "eq.two_operators": {
        "en": "two operators in a row ({ops})",
        "pt": "dois operadores seguidos ({ops})",
        "ru": "два знака операции подряд ({ops})",
    },
    "eq.lone_zero": {
        "en": "a lone 0 on the left side",
        "pt": "um 0 sozinho no lado esquerdo",
        "ru": "одиночный 0 в левой части",
    },
    "eq.left_symbol": {
        "en": "{symbol:q} on the left side",
        "pt": "{symbol:q} no lado esquerdo",
        "ru": "{symbol:q} в левой части",
    },
    "eq.needs_operator": {
        "en": "the left side needs an operator",
        "pt": "o lado esquerdo precisa de um operador",
        "ru": "в левой части нужен знак операции",
    },
    "eq.division_by_zero": {
        "en": "division by zero",
        "pt": "divisão por zero",
        "ru": "деление на ноль",
    },
    "eq.division_not_whole": {
        "en": "a division does not come out whole ({division})",
        "pt": "uma divisão não dá um número inteiro ({division})",
        "ru": "деление не нацело ({division})",
    },
    "eq.right_single": {
        "en": "the right side must be a single number",
        "pt": "o lado direito deve ser um único número",
        "ru": "правая часть должна быть одним числом",
    },
    "eq.right_negative": {
        "en": "the right side cannot be negative ({number})",
        "pt": "o lado direito não pode ser negativo ({number})",
        "ru": "правая часть не может быть отрицательной ({number})",
    },
    "eq.right_minus_zero": {
        "en": "the right side cannot be -0",
        "pt": "o lado direito não pode ser -0",
        "ru": "правая часть не может быть -0",
    },
    "eq.right_zero": {
        "en": "the right side cannot be 0",
        "pt": "o lado direito não pode ser 0",
        "ru": "правая часть не может быть 0",
    },
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


def _message(text: str, code: str, params: dict) -> Message:
    return Message(text, code, **params)


def message_of(text) -> dict | None:
    """``{"code", "params"}`` of a library sentence: a Message's own, or a reason read back from
    its text (`reason_message`); None when it has no code."""
    if isinstance(text, Message):
        return text.as_json()
    found = reason_message(str(text))
    return None if found is None else {"code": found[0], "params": found[1]}


def nested(text):
    """A sentence as a param of another message: its ``{"code", "params"}``, or the text itself
    when it has no code (rendered as it is)."""
    found = message_of(text)
    return str(text) if found is None else found


def messages_of(text) -> dict[str, str] | None:
    """The three renderings of a library sentence (None when it has no code)."""
    if type(text) is str:  # a plain sentence (a reason read back from its text): the same every time
        found = _plain_messages_of(text)
        return None if found is None else dict(found)
    found = message_of(text)
    return None if found is None else messages(found["code"], found["params"])


@functools.lru_cache(maxsize=4096)
def _plain_messages_of(text: str) -> dict[str, str] | None:
    found = message_of(text)
    return None if found is None else messages(found["code"], found["params"])


# --------------------------------------------------------------------------- reasons

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
