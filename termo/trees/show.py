"""A tree for people: its top levels, or the path one answer takes.

`top_levels` gives plain data for the first ``depth`` guesses (each node: its guess, how many
answers reach it, and its children by pattern); `answer_path` replays one answer through the
tree (the feedback from the pattern matrix) and lists the guesses and patterns on the way.
`format_levels` / `format_path` turn them into text lines.
"""

from __future__ import annotations

from backends import host
from termo.core.errors import TermoError
from termo.core.messages import counted


def _matrix(game):
    from termo.engine.matrix import pattern_matrix

    hb = host()
    return hb.to_numpy(pattern_matrix(game, backend=hb))


def top_levels(tree, game, depth: int = 2) -> dict:
    """Nested plain data: ``{"guess", "answers", "children": [{"pattern", ...}]}`` down to
    ``depth`` guesses (1: the opener alone); ``more`` counts the nodes cut below."""
    from termo.core.feedback import decode

    xp = host().xp
    matrix = _matrix(game)
    length = game.word_length

    def visit(node, answers, level):
        out = {"guess": game.probes[node.guess], "answers": int(answers.shape[0])}
        codes = xp.astype(xp.take(xp.asarray(matrix[node.guess]), answers), xp.int64)
        out["solved_here"] = int(xp.sum(codes == game.win_code))
        if not node.children:
            return out
        if level >= depth:
            out["more"] = node.count() - 1
            return out
        kids = []
        for code in sorted(node.children):
            sub = answers[codes == code]
            kid = visit(node.children[code], sub, level + 1)
            kids.append({"pattern": decode(code, length), **kid})
        out["children"] = kids
        return out

    return visit(tree.root, xp.arange(game.n_answers, dtype=xp.int64), 1)


def format_levels(data: dict, indent: str = "") -> list[str]:
    lines = []
    head = f"{indent}{data.get('pattern', 'start')} -> {data['guess']}  ({counted(data['answers'], 'answer')}"
    head += f", {data['solved_here']} solved here)" if data.get("solved_here") else ")"
    if data.get("more"):
        head += f"  [+{data['more']} nodes below]"
    lines.append(head)
    for kid in data.get("children", []):
        lines.extend(format_levels(kid, indent + "  "))
    return lines


def answer_path(tree, game, answer: str) -> dict:
    """The guesses and patterns the tree plays against ``answer`` (TermoError when it is not an
    answer of the game): ``{"answer", "steps": [{"guess", "pattern"}], "guesses", "solved"}``."""
    from termo.core.feedback import decode

    index = game.index_of(answer)
    if index is None or not game.is_answer_index(index):
        raise TermoError(f"{answer[:40]!r} is not an answer of {game.label}")
    matrix = _matrix(game)
    node, steps = tree.root, []
    while node is not None and len(steps) < 64:
        code = int(matrix[node.guess, index])
        steps.append({"guess": game.probes[node.guess], "pattern": decode(code, game.word_length)})
        if code == game.win_code:
            return {"answer": game.answers[index], "steps": steps, "guesses": len(steps), "solved": True}
        node = node.children.get(code)
    return {"answer": game.answers[index], "steps": steps, "guesses": len(steps), "solved": False}


def format_path(data: dict) -> list[str]:
    from termo.core.feedback import render_squares

    lines = [f"{data['answer']}: "
             + (f"solved in {data['guesses']}" if data["solved"] else "not solved (the tree has no branch for it)")]
    for number, step in enumerate(data["steps"], start=1):
        lines.append(f"  {number}. {step['guess']}  {render_squares(step['pattern'])}  {step['pattern']}")
    return lines
