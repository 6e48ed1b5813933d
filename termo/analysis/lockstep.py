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
from termo.core.keys import candidate_key
from termo.worlds.world import termo_defaults


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
    slots: dict[bytes, int] = {}
    distinct, which = [], []
    for state in states:
        slot = slots.setdefault(candidate_key(state), len(slots))
        if slot == len(distinct):  # first seen
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


def _start_set(initial: Sequence[int] | None, n_answers: int, secrets: list[int]) -> list[int]:
    """The starting candidate set (ascending, default every answer); every secret must be in it."""
    start = list(range(n_answers)) if initial is None else sorted({int(c) for c in initial})
    if not start:
        raise TermoError("the initial candidate set is empty")
    allowed = set(start)
    bad = [s for s in secrets if s not in allowed]
    if bad:
        raise TermoError(f"secret index {bad[0]} is not among the initial candidates")
    return start


def _check_choices(choices: list[int], n_probes: int) -> None:
    if min(choices) < 0 or max(choices) >= n_probes:
        bad_choice = min(choices) if min(choices) < 0 else max(choices)
        raise TermoError(f"policy chose probe index {bad_choice}, outside 0..{n_probes - 1}")


def play_lockstep(
    policy,
    matrix,
    secrets: Sequence[int],
    initial: Sequence[int] | None = None,
    *,
    max_turns: int | None = None,
    n_patterns: int | None = None,
    backend=None,
    on_turn: Callable[[int, int, int], None] | None = None,
) -> LockstepResult:
    """Play ``policy`` against every secret of ``secrets`` at once (see the module docstring).

    ``matrix`` is the (probes × answers) pattern matrix on ``backend``; ``secrets`` and
    ``initial`` (the starting candidate set, default all answers) are answer indices; every
    secret must belong to ``initial``. ``max_turns`` and ``n_patterns`` are the game's (None:
    Termo's, 6 turns and 243 patterns). ``on_turn(turn, alive, nodes)`` is called after each turn
    (for progress bars).
    """
    backend = get_backend(backend) if not hasattr(backend, "xp") else backend
    max_turns, n_patterns = termo_defaults(max_turns, n_patterns)
    start = time.perf_counter()
    secrets_host = [int(s) for s in secrets]
    initial_host = _start_set(initial, int(matrix.shape[1]), secrets_host)
    result = LockstepResult(secrets=secrets_host, solved_turn=[0] * len(secrets_host), max_turns=max_turns,
                            seconds=0.0)
    if secrets_host:
        _Run(backend, matrix, n_patterns, initial_host, secrets_host).play(policy, result, on_turn)
        result.seconds = time.perf_counter() - start
    return result


class _Run:
    """One lockstep run: the fixed-shape device state of :func:`_make_step` and, on the host, the
    current turn's candidate sets (``members_host`` cut at ``offsets``)."""

    def __init__(self, backend, matrix, n_patterns: int, initial: list[int], secrets: list[int]) -> None:
        xp = backend.xp
        self.backend, self.n_patterns = backend, n_patterns
        self.n_probes, n_answers = int(matrix.shape[0]), int(matrix.shape[1])
        self.step = _step_function(backend, n_answers, n_patterns)
        self.flat_m = xp.reshape(matrix, (-1,))
        n, size = len(secrets), len(initial)
        self.n = n
        self.members = backend.asarray(initial, dtype="int64")
        self.member_node = xp.zeros((size,), dtype=xp.int64)
        self.member_valid = xp.ones((size,), dtype=xp.bool)
        self.secret = backend.asarray(secrets, dtype="int64")
        self.alive = xp.ones((n,), dtype=xp.bool)
        self.node = xp.zeros((n,), dtype=xp.int64)
        np_ = host().xp
        self.members_host = np_.asarray(initial, dtype=np_.int64)
        self.offsets = [0, size]

    def play(self, policy, result: LockstepResult, on_turn) -> None:
        """Every turn until the limit or the last win, recorded in ``result``."""
        tokens = [policy.start()] if getattr(policy, "branch_dependent", False) else None
        n_alive = self.n
        for turn in range(1, result.max_turns + 1):
            states = _segments(self.members_host, self.offsets)
            choices, tokens, asked = _decide(policy, states, turn, tokens)
            if turn == 1:
                result.first_guess = choices[0]
            result.nodes_per_turn.append(len(states))
            result.decisions_per_turn.append(asked)
            _check_choices(choices, self.n_probes)
            won_now, out = self._advance(choices)
            for i in won_now:  # each game is won at most once: O(games) over the whole run
                result.solved_turn[i] = turn
            n_alive -= len(won_now)
            if on_turn is not None:
                on_turn(turn, n_alive, len(states))
            if turn == result.max_turns or n_alive == 0:
                break
            starts, n_children, child_keys = out
            n_children = int(n_children)
            self._next_sets(starts, n_children)
            if tokens is not None:  # children inherit their parent's token
                parents = self._to_host(child_keys)[:n_children] // self.n_patterns
                tokens = [tokens[int(p)] for p in parents.tolist()]

    def _advance(self, choices: list[int]):
        """Play ``choices`` (one probe per node): the secrets won now, and the step's child sets."""
        backend = self.backend
        guess_of_node = backend.asarray(choices + [0] * (self.n + 1 - len(choices)), dtype="int64")
        won, self.alive, self.node, self.members, self.member_node, self.member_valid, *out = self.step(
            self.flat_m, self.members, self.member_node, self.member_valid, guess_of_node, self.node, self.secret,
            self.alive
        )
        return host().xp.nonzero(self._to_host(won))[0].tolist(), out

    def _to_host(self, array):
        return host().xp.asarray(self.backend.to_numpy(array))

    def _next_sets(self, starts, n_children: int) -> None:
        """Bring the next turn's ``n_children`` candidate sets to the host."""
        np_ = host().xp
        starts_host = self._to_host(starts)[:n_children].tolist()
        n_members = int(np_.sum(self._to_host(self.member_valid)))
        self.members_host = np_.astype(self._to_host(self.members)[:n_members], np_.int64)
        self.offsets = [int(v) for v in starts_host] + [n_members]
