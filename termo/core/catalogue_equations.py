"""The catalogue's codes for a Nerdle equation that does not hold or is not well formed, in en, pt, ru.

Joined into `termo.core.messages.CATALOGUE`, whose docstring says how a template is written.
"""

from __future__ import annotations


EQUATIONS: dict[str, dict[str, str]] = {
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
}
