"""The catalogue's codes for what a request, a round, a guess, its colours or an option got wrong
(the server's own refusals, history items, guesses, colours, hard mode, options, the turns of
several boards at once), in en, pt, ru.

One part of `termo.core.messages.CATALOGUE` (the template fields: see that module).
"""

from __future__ import annotations


INPUT: dict[str, dict[str, str]] = {
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
    "guess.cyrillic_lookalike": {
        "en": "{word}: {char:q} is a Cyrillic letter that looks like the Latin {latin:q}; type the Latin one",
        "pt": "{word}: {char:q} é uma letra cirílica parecida com a latina {latin:q}; digite a latina",
        "ru": "{word}: {char:q} — кириллическая буква, похожая на латинскую {latin:q}; наберите латинскую",
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
    "level.mode": {
        "en": "a mode of several boards is played at level 2 or 3, not {level}",
        "pt": "um modo de vários tabuleiros se joga no nível 2 ou 3, não {level}",
        "ru": "режим с несколькими досками играется на уровне 2 или 3, а не {level}",
    },
    "option.one_board": {
        "en": "{option:option} is for one board; {mode} has several",
        "pt": "{option:option} é para um tabuleiro; {mode} tem vários",
        "ru": "{option:option} — для одной доски; в режиме {mode} их несколько",
    },
    "option.objective_boards": {
        "en": "the objective {objective:objective} is for a mode of several boards; {game} has one board",
        "pt": "o objetivo {objective:objective} é para um modo de vários tabuleiros; {game} tem um tabuleiro",
        "ru": "цель «{objective:objective}» — для режима с несколькими досками; в {game} одна доска",
    },
    "objective.unknown": {
        "en": "the objective must be finish, score or win, not {name:q}",
        "pt": "o objetivo deve ser terminar (finish), pontuação (score) ou vencer (win), não {name:q}",
        "ru": "цель может быть finish, score или win, а не {name:q}",
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
    # ---- several boards at once (termo.engine.multi.boards): one guess, one pattern per board
    "boards.count": {
        "en": "{n:p:colour pattern is:colour patterns are} given for {boards:p:board:boards}; give one per board, in board order",
        "pt": "{n:p:padrão de cores foi dado:padrões de cores foram dados} para {boards:p:tabuleiro:tabuleiros}; dê um por tabuleiro, na ordem dos tabuleiros",
        "ru": "задано {n:p:раскраска:раскраски:раскрасок} для {boards:p:доски:досок:досок}; нужна одна на каждую доску, по порядку досок",
    },
    "boards.solved_pattern": {
        "en": "board {board} is already solved: it takes no colours",
        "pt": "o tabuleiro {board} já foi resolvido: ele não recebe cores",
        "ru": "доска {board} уже решена: цвета для неё не нужны",
    },
    "boards.missing_pattern": {
        "en": "board {board} is not solved: give its colours",
        "pt": "o tabuleiro {board} não foi resolvido: dê as cores dele",
        "ru": "доска {board} не решена: укажите её цвета",
    },
    "boards.board": {
        "en": "board {board}: {error}",
        "pt": "tabuleiro {board}: {error}",
        "ru": "доска {board}: {error}",
    },
    "boards.empty": {
        "en": "board {board} ({guess}) leaves no candidate: check the colours, or the answer is not in the word list; the guess was not applied",
        "pt": "o tabuleiro {board} ({guess}) não deixa nenhuma candidata: confira as cores, ou a resposta não está na lista de palavras; a palavra não foi aplicada",
        "ru": "доска {board} ({guess}) не оставляет ни одного кандидата: проверьте цвета, или ответа нет в списке слов; слово не применено",
    },
    "boards.same_answer": {
        "en": "{guess} cannot solve {n:p:board:boards} at once: each board has its own answer",
        "pt": "{guess} não pode resolver {n:p:tabuleiro:tabuleiros} de uma vez: cada tabuleiro tem a sua resposta",
        "ru": "{guess} не может решить сразу {n:p:доску:доски:досок}: у каждой доски свой ответ",
    },
    "boards.won": {
        "en": "every board is already solved: start a new game",
        "pt": "todos os tabuleiros já foram resolvidos: comece um novo jogo",
        "ru": "все доски уже решены: начните новую игру",
    },
    "boards.over": {
        "en": "the game is over: all {tries} tries were played",
        "pt": "o jogo acabou: as {tries} tentativas foram usadas",
        "ru": "игра окончена: все {tries} попыток сыграны",
    },
}
