"""Lockstep evaluation: play one policy against many secrets at once, turn by turn (rules §7.1).

A game against secret ``s`` starts from the candidate set ``C`` (all answers, or a world's answer
subset). On turn ``t`` the policy picks a probe ``g``; the game is won iff ``g == s`` (probe index
equals answer index, since answers are a prefix of the probes); otherwise ``C`` becomes
``{c in C : M[g, c] == M[g, s]}``. After ``max_turns`` turns without a win the game is lost.

A deterministic policy is a *tree*: every secret that shares a history shares the candidate set
and therefore the decision. So instead of looping over games × turns we keep, for every turn,
the list of distinct *nodes* (histories still alive) and advance all of them at once:

* the policy is asked once per distinct candidate set of the turn (``choose_many``), so a
  batched policy runs all of that turn's entropy sweeps together;
* the secrets' verdicts and feedback codes are one gather on the backend;
* all child candidate sets of the turn come from one gather of the codes of every member of
  every node, one stable sort by ``(node, code)`` and a ``searchsorted`` against the codes the
  surviving secrets actually produce (buckets no secret reaches are dropped).

Candidate sets live in a *segmented* array: ``members`` (backend int64, each segment ascending)
and host ``offsets``; the policy is handed each turn's sets as host int64 arrays (one transfer
per turn). Python touches nodes, never cells.

Policies
--------
* A **state policy** (the default) has ``choose_many(states, turns) -> list[int]``; its decision
  depends only on the candidate set and the turn. States equal as sets are deduplicated before
  asking.
* A **branch policy** sets ``branch_dependent = True`` and has ``start() -> token`` and
  ``choose_branches(states, turns, tokens) -> (choices, tokens)``: the token is whatever the
  policy needs to remember about the history (the random strategy keeps its generator state
  there). Children inherit the token their parent's decision produced.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence

from backends import get_backend, host
from termo.core.errors import TermoError


class StatePolicy(Protocol):
    def choose_many(self, states: Sequence, turns: Sequence[int]) -> Sequence[int]: ...


@dataclass
class LockstepResult:
    """Outcome of one lockstep run; host data only.

    ``solved_turn[i]`` is the turn on which ``secrets[i]`` was guessed, 0 when the game was lost.
    ``nodes_per_turn[t-1]`` counts the histories alive at turn ``t`` and ``decisions_per_turn``
    the distinct (candidate set) questions put to the policy.
    """

    secrets: list[int]
    solved_turn: list[int]
    max_turns: int
    seconds: float
    nodes_per_turn: list[int] = field(default_factory=list)
    decisions_per_turn: list[int] = field(default_factory=list)
    first_guess: int | None = None

    @property
    def games(self) -> int:
        return len(self.secrets)


def _segments(members_host, offsets_host: list[int]) -> list:
    """The candidate sets of the turn as host int64 arrays (views into one array)."""
    return [members_host[offsets_host[i] : offsets_host[i + 1]] for i in range(len(offsets_host) - 1)]


def _dedupe_states(states) -> tuple[list, list[int]]:
    """Distinct candidate sets (by content) and, for every state, the index of its distinct set."""
    unique: dict[bytes, int] = {}
    distinct = []
    which = []
    for state in states:
        key = state.tobytes()
        slot = unique.get(key)
        if slot is None:
            slot = len(distinct)
            unique[key] = slot
            distinct.append(state)
        which.append(slot)
    return distinct, which


def _decide(policy, states, turn: int, tokens):
    """Ask the policy for one probe per node; returns (choices, tokens, distinct questions)."""
    n = len(states)
    turns = [turn] * n
    if getattr(policy, "branch_dependent", False):
        choices, tokens = policy.choose_branches(states, turns, tokens)
        return [int(c) for c in choices], list(tokens), n
    distinct, which = _dedupe_states(states)
    answers = policy.choose_many(distinct, [turn] * len(distinct))
    answers = [int(a) for a in answers]
    if len(answers) != len(distinct):
        raise TermoError(f"policy answered {len(answers)} states out of {len(distinct)}")
    return [answers[w] for w in which], tokens, len(distinct)


_STEPS: dict = {}


def _step_function(backend, n_answers: int, n_patterns: int):
    """The fixed-shape turn step for ``backend`` (jit-compiled once per shape on JAX)."""
    key = (backend.name, id(backend.xp), n_answers, n_patterns)
    step = _STEPS.get(key)
    if step is None:
        step = backend.compile(_make_step(backend.xp, n_answers, n_patterns))
        _STEPS[key] = step
    return step


def _make_step(xp, n_answers: int, n_patterns: int):
    """Build the turn step: verdicts, then every child candidate set, all with fixed shapes.

    Shapes never change from turn to turn (secrets are masked, not removed; member slots past
    the live ones are marked invalid), so a compiling backend compiles the step once per run
    size. ``node``/``member_node`` are node ids, ``guess_of_node`` has one spare slot (index
    ``n``) that padding points to. The sentinel key ``big`` sorts after every real key.
    """

    def step(flat_m, members, member_node, member_valid, guess_of_node, node, secret, alive):
        i64 = xp.int64
        n = node.shape[0]
        big = (n + 1) * n_patterns
        guess = xp.take(guess_of_node, node)
        won = alive & (guess == secret)
        still = alive & ~won
        code_s = xp.astype(xp.take(flat_m, guess * n_answers + secret), i64)
        key_s = xp.where(still, node * n_patterns + code_s, big)
        s_sorted = xp.sort(key_s)
        fresh = xp.concat([xp.ones((1,), dtype=xp.bool), s_sorted[1:] != s_sorted[:-1]])
        fresh = fresh & (s_sorted < big)
        child_keys = xp.sort(xp.where(fresh, s_sorted, big))  # distinct live keys, then sentinels
        n_children = xp.sum(xp.astype(fresh, i64))
        child_of_secret = xp.searchsorted(child_keys, key_s)

        m_guess = xp.take(guess_of_node, member_node)
        code_m = xp.astype(xp.take(flat_m, m_guess * n_answers + members), i64)
        key_m = xp.where(member_valid, member_node * n_patterns + code_m, big)
        slot = xp.clip(xp.searchsorted(child_keys, key_m), 0, n - 1)
        kept = member_valid & (xp.take(child_keys, slot) == key_m)
        key_k = xp.where(kept, key_m, big)
        order = xp.argsort(key_k, stable=True)
        new_members = xp.take(members, order)
        sorted_keys = xp.take(key_k, order)
        new_valid = sorted_keys < big
        new_node = xp.where(new_valid, xp.searchsorted(child_keys, sorted_keys), n)
        starts = xp.searchsorted(sorted_keys, child_keys)
        return won, still, child_of_secret, new_members, new_node, new_valid, starts, n_children, child_keys

    return step


def play_lockstep(
    policy,
    matrix,
    secrets: Sequence[int],
    initial: Sequence[int] | None = None,
    *,
    max_turns: int = 6,
    n_patterns: int = 243,
    backend=None,
    on_turn: Callable[[int, int, int], None] | None = None,
) -> LockstepResult:
    """Play ``policy`` against every secret of ``secrets`` at once (see the module docstring).

    ``matrix`` is the (probes × answers) pattern matrix on ``backend``; ``secrets`` and
    ``initial`` (the starting candidate set, default all answers) are answer indices; every
    secret must belong to ``initial``. ``on_turn(turn, alive, nodes)`` is called after each turn
    (for progress bars).
    """
    backend = get_backend(backend) if not hasattr(backend, "xp") else backend
    xp = backend.xp
    np_ = host().xp
    start = time.perf_counter()
    n_probes, n_answers = int(matrix.shape[0]), int(matrix.shape[1])
    secrets_host = [int(s) for s in secrets]
    if initial is None:
        initial_host = list(range(n_answers))
    else:
        initial_host = sorted({int(c) for c in initial})
    if not initial_host:
        raise TermoError("the initial candidate set is empty")
    allowed = set(initial_host)
    bad = [s for s in secrets_host if s not in allowed]
    if bad:
        raise TermoError(f"secret index {bad[0]} is not among the initial candidates")
    n = len(secrets_host)
    solved = [0] * n
    result = LockstepResult(secrets=secrets_host, solved_turn=solved, max_turns=max_turns, seconds=0.0)
    if n == 0:
        return result

    step = _step_function(backend, n_answers, n_patterns)
    flat_m = xp.reshape(matrix, (-1,))
    size = len(initial_host)
    members = backend.asarray(initial_host, dtype="int64")
    member_node = xp.zeros((size,), dtype=xp.int64)
    member_valid = xp.ones((size,), dtype=xp.bool)
    secret = backend.asarray(secrets_host, dtype="int64")
    alive = xp.ones((n,), dtype=xp.bool)
    node = xp.zeros((n,), dtype=xp.int64)
    members_host = np_.asarray(initial_host, dtype=np_.int64)
    offsets = [0, size]
    tokens = [policy.start()] if getattr(policy, "branch_dependent", False) else None
    n_alive = n

    for turn in range(1, max_turns + 1):
        states = _segments(members_host, offsets)
        choices, tokens, asked = _decide(policy, states, turn, tokens)
        if turn == 1:
            result.first_guess = choices[0]
        result.nodes_per_turn.append(len(states))
        result.decisions_per_turn.append(asked)
        if min(choices) < 0 or max(choices) >= n_probes:
            bad_choice = min(choices) if min(choices) < 0 else max(choices)
            raise TermoError(f"policy chose probe index {bad_choice}, outside 0..{n_probes - 1}")
        guess_of_node = backend.asarray(choices + [0] * (n + 1 - len(choices)), dtype="int64")

        won, alive, node, members, member_node, member_valid, starts, n_children, child_keys = step(
            flat_m, members, member_node, member_valid, guess_of_node, node, secret, alive
        )
        won_now = np_.nonzero(np_.asarray(backend.to_numpy(won)))[0].tolist()
        for i in won_now:  # each game is won at most once: O(games) over the whole run
            solved[i] = turn
        n_alive -= len(won_now)
        if on_turn is not None:
            on_turn(turn, n_alive, len(states))
        if turn == max_turns or n_alive == 0:
            break
        n_children = int(n_children)
        starts_host = np_.asarray(backend.to_numpy(starts))[:n_children].tolist()
        valid_host = np_.asarray(backend.to_numpy(member_valid))
        n_members = int(np_.sum(valid_host))
        members_host = np_.astype(np_.asarray(backend.to_numpy(members))[:n_members], np_.int64)
        offsets = [int(v) for v in starts_host] + [n_members]
        if tokens is not None:
            parents = np_.asarray(backend.to_numpy(child_keys))[:n_children] // n_patterns
            tokens = [tokens[int(p)] for p in parents.tolist()]

    result.seconds = time.perf_counter() - start
    return result
