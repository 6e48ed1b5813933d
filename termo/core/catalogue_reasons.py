"""The catalogue's codes for warnings and for the reasons a suggestion gives, in en, pt, ru, with the
reasons and errors of the games whose colours are not one honest answer's (the adversary's,
Absurdle; the lying rows', Fibble). The solvers build their reasons as `termo.core.messages.Message`
values with these codes (never read back from their English text).

The templates are a part of `termo.core.messages.CATALOGUE` (that module renders them).
"""

from __future__ import annotations


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
    # the opener's notes: the board has no opener option, so they say which word it is, not how to ask
    "reason.optimum_not_interface": {
        "en": "{reason}; the optimum of these options, not the game's usual first word {opener}",
        "pt": "{reason}; a ótima destas opções, não a primeira palavra de costume do jogo, {opener}",
        "ru": "{reason}; оптимальное при этих настройках, а не обычное первое слово игры {opener}",
    },
    "reason.interface_not_optimum": {
        "en": "the game's usual first word; the best first word at these options is {best}",
        "pt": "a primeira palavra de costume do jogo; a melhor primeira palavra com estas opções é {best}",
        "ru": "обычное первое слово игры; лучшее первое слово при этих настройках — {best}",
    },
    "reason.interface_maybe_not_optimum": {
        "en": "the game's usual first word, not necessarily the best at these options",
        "pt": "a primeira palavra de costume do jogo, não necessariamente a melhor com estas opções",
        "ru": "обычное первое слово игры, не обязательно лучшее при этих настройках",
    },
    "reason.optimum_report": {
        "en": "{reason}; the optimum of these options; the game's usual first word is {opener}",
        "pt": "{reason}; a ótima destas opções; a primeira palavra de costume do jogo é {opener}",
        "ru": "{reason}; оптимальное при этих настройках; обычное первое слово игры — {opener}",
    },
    # ---- several boards (termo.engine.multi)
    "reason.boards_entropy": {
        "en": "the largest joint entropy over {n:p:unsolved board:unsolved boards}: {bits:.3f} bits",
        "pt": "a maior entropia conjunta nos {n:p:tabuleiro:tabuleiros} sem resolver: {bits:.3f} bits",
        "ru": "наибольшая совместная энтропия по {n:p:нерешённой доске:нерешённым доскам:нерешённым доскам}: {bits:.3f} бит",
    },
    "reason.boards_entropy_late": {
        "en": "the largest joint entropy among the boards' candidates (no turn to spare): {bits:.3f} bits",
        "pt": "a maior entropia conjunta entre as candidatas dos tabuleiros (não sobra tentativa): {bits:.3f} bits",
        "ru": "наибольшая совместная энтропия среди кандидатов досок (лишних попыток нет): {bits:.3f} бит",
    },
    "reason.boards_forced": {
        "en": "board {board} has one candidate left: play it to solve that board",
        "pt": "o tabuleiro {board} tem uma só candidata: jogue-a para resolvê-lo",
        "ru": "на доске {board} остался один кандидат: сыграйте его",
    },
    "reason.boards_won": {
        "en": "all {n} boards solved in {turn}/{tries}",
        "pt": "os {n} tabuleiros resolvidos em {turn}/{tries}",
        "ru": "все {n} доски решены за {turn}/{tries}",
    },
    "reason.boards_exact": {
        "en": "the best guess for the {objective:objective}, proved over every guess and all {tuples} possible answer combinations",
        "pt": "a melhor palavra para o objetivo ({objective:objective}), provada sobre todas as palavras e as {tuples} combinações de respostas possíveis",
        "ru": "лучшее слово для цели ({objective:objective}), доказано перебором всех слов и {tuples} возможных сочетаний ответов",
    },
    "reason.boards_search": {
        "en": "the best estimate of a one-turn look-ahead over {guesses} guesses on {n:p:unsolved board:unsolved boards}",
        "pt": "a melhor estimativa olhando uma rodada à frente, entre {guesses} palavras, nos {n:p:tabuleiro:tabuleiros} sem resolver",
        "ru": "лучшая оценка с просмотром на один ход вперёд среди {guesses} слов по {n:p:нерешённой доске:нерешённым доскам:нерешённым доскам}",
    },
    "reason.boards_rollout": {
        "en": "the best {objective:objective} of each guess followed by the entropy rule, over all {tuples} possible answer combinations",
        "pt": "o melhor valor do objetivo ({objective:objective}) de cada palavra seguida da regra da entropia, sobre as {tuples} combinações de respostas possíveis",
        "ru": "лучшее значение цели ({objective:objective}) для каждого слова с последующим правилом энтропии, по всем {tuples} возможным сочетаниям ответов",
    },
    "reason.boards_sampled": {
        "en": "the best estimated {objective:objective} of each guess followed by the entropy rule, over {tuples} sampled answer combinations",
        "pt": "a melhor estimativa do objetivo ({objective:objective}) de cada palavra seguida da regra da entropia, sobre {tuples} combinações de respostas sorteadas",
        "ru": "лучшая оценка цели ({objective:objective}) для каждого слова с последующим правилом энтропии, по {tuples} случайным сочетаниям ответов",
    },
    "reason.boards_too_large": {
        "en": "the largest joint entropy (the position is too large to search)",
        "pt": "a maior entropia conjunta (a posição é grande demais para a busca)",
        "ru": "наибольшая совместная энтропия (позиция слишком велика для поиска)",
    },
    "reason.boards_first_given": {
        "en": "the first word you chose",
        "pt": "a primeira palavra que você escolheu",
        "ru": "первое слово, которое вы выбрали",
    },
    "reason.boards_first_level2": {
        "en": "the largest joint entropy on the first turn (the first turn is not searched)",
        "pt": "a maior entropia conjunta na primeira rodada (a primeira rodada não é buscada)",
        "ru": "наибольшая совместная энтропия на первом ходу (первый ход не перебирается)",
    },
    "reason.boards_first_table": {
        "en": "the first word measured best for {mode} over many games",
        "pt": "a primeira palavra medida como a melhor para {mode} em muitos jogos",
        "ru": "первое слово, лучшее для {mode} по многим партиям",
    },
    "reason.boards_forced_valued": {
        "en": "board {board} has one candidate left: play it to solve that board ({reason})",
        "pt": "o tabuleiro {board} tem uma só candidata: jogue-a para resolvê-lo ({reason})",
        "ru": "на доске {board} остался один кандидат: сыграйте его ({reason})",
    },
    # ======== the games whose colours are not one honest answer's (docs/rules.md §13)
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

# the objectives of several boards, as a sentence names them ({objective:objective})
OBJECTIVE_NAMES = {
    "finish": {"en": "expected number of guesses to finish", "pt": "número esperado de tentativas até terminar",
               "ru": "ожидаемое число попыток до конца"},
    "score": {"en": "expected score (the sum of the boards' turns)", "pt": "pontuação esperada (a soma das rodadas dos tabuleiros)",
              "ru": "ожидаемый счёт (сумма ходов досок)"},
    "win": {"en": "chance to solve every board in time", "pt": "chance de resolver todos os tabuleiros a tempo",
            "ru": "шанс решить все доски вовремя"},
}
