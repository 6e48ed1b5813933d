"""Small temperatures (rules §2.5): every positive T gives its own prior, never the uniform one.

At a small T the global prior ``softmax(−ICF/T)`` gives a rare candidate set a mass that
underflows to 0, and below T ≈ 1e-306 the textbook formula overflows to NaN. These tests pin the
repairs: the prior's stable form (`termo.core.prior.prior_weights`), the per-set re-basing of
`termo.engine.solver.Solver` (`Solver.rebased`), the one-line rejection of a T that parses to 0.0, and
the opener cache key of a stable-form prior. The oracles are independent: the prior restricted
to the set computed in 60-digit decimal arithmetic, and, for T far below every ICF gap of the
set, the T → 0 limit itself (all the mass on the set's lowest-ICF word).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from decimal import Decimal, localcontext
from pathlib import Path

import numpy as np
import pytest

from termo.book import openers
from termo.core.errors import TermoError
from termo.book.policies import make_policy
from termo.core.prior import REBASE_MASS, parse_temperature, prior_weights, rebased_prior
from termo.engine.session import Session
from termo.engine.solver import Solver

REPO = Path(__file__).resolve().parent.parent
TINY = (1e-306, 1e-308, 5e-324)  # 1e-306: every other word underflows; below: the old formula is NaN


def _today(icf, t):
    """The published formula of §2.5, exactly as it always was (the finite-case pin)."""
    logits = -np.asarray(icf, dtype=np.float64) / t
    w = np.exp(logits - np.max(logits))
    return w / np.sum(w)


def _candidates(game, history):
    session = Session(game)
    session.replay(history)
    return [int(c) for c in session.candidates]


@pytest.fixture(scope="module")
def tarso_bbbbb(game):
    return _candidates(game, ["tarso:BBBBB"])


def _decimal_prior(game, cands, t):
    """``softmax(−ICF/T)`` restricted to ``cands``, in 60-digit decimal arithmetic, as float64."""
    out = np.zeros(game.n_answers, dtype=np.float64)
    with localcontext() as ctx:
        ctx.prec = 60
        scores = {c: Decimal(repr(float(game.icf[c]))) for c in cands}
        low = min(scores.values())
        tt = Decimal(repr(float(t)))
        w = {c: (-(s - low) / tt).exp() for c, s in scores.items()}
        total = sum(w.values())
        for c in cands:
            out[c] = float(w[c] / total)
    return out


def _limit_prior(game, cands):
    """The T → 0 limit: all the mass on the lowest-ICF candidates (equal shares on ties)."""
    low = min(float(game.icf[c]) for c in cands)
    top = [c for c in cands if float(game.icf[c]) == low]
    out = np.zeros(game.n_answers, dtype=np.float64)
    out[top] = 1.0 / len(top)
    return out


def _cli(*args):
    """``termo ARGS`` in a fresh process: (rc, stdout, stderr without the numba compile notice)."""
    from backends.numba_shim import COMPILE_NOTICE

    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-m", "cli", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    notice = COMPILE_NOTICE.split("{")[0]
    err = [line for line in proc.stderr.splitlines() if not (notice and line.startswith(notice))]
    return proc.returncode, proc.stdout, "\n".join(err)


# ---------------------------------------------------------------- the prior itself


@pytest.mark.parametrize("t", [0.002, 0.02, 0.1, 0.25, 0.5, 1.0, 2.0, 10.0, 1e-3, 1e-100, 1e-306])
def test_finite_formula_keeps_its_bits(game, t):
    """Wherever the formula of §2.5 is finite, the prior is that formula, bit for bit."""
    expected = _today(game.icf, t)
    assert np.all(np.isfinite(expected))
    assert np.array_equal(prior_weights(game.icf, t), expected)


@pytest.mark.parametrize("t", TINY)
def test_tiny_temperatures_give_the_limit_without_nan_or_warning(game, t):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            p = prior_weights(game.icf, t)
    assert np.all(np.isfinite(p)) and p.sum() == 1.0
    assert np.array_equal(p, _limit_prior(game, range(game.n_answers)))
    assert game.answers[int(np.argmax(p))] == "muito"


def test_stable_form_keeps_ties_and_handles_negative_scores():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(prior_weights([3.0, 1.0, 1.0, 2.0], 1e-320)) == [0.0, 0.5, 0.5, 0.0]
        assert list(prior_weights([-1e300, 1e300], 1e-10)) == [1.0, 0.0]


def test_rebased_prior_matches_decimal_oracle(game, tarso_bbbbb):
    p = rebased_prior(game.icf, 0.002, tarso_bbbbb)
    oracle = _decimal_prior(game, tarso_bbbbb, 0.002)
    assert p.shape == (game.n_answers,) and p.sum() == pytest.approx(1.0, abs=1e-15)
    assert np.all(p[np.setdiff1d(np.arange(game.n_answers), tarso_bbbbb)] == 0.0)
    nz = oracle > 0
    assert np.array_equal(p > 0, nz)
    assert np.allclose(p[nz], oracle[nz], rtol=1e-12, atol=0)


def test_temperature_below_the_smallest_positive_number_is_rejected():
    assert parse_temperature("5e-324") == 5e-324
    for text in ("1e-400", "2e-324"):
        with pytest.raises(TermoError, match="smallest positive") as err:
            parse_temperature(text)
        assert "\n" not in str(err.value)
    for text in ("0", "-1e-400", "-0.0"):
        with pytest.raises(TermoError, match="positive"):
            parse_temperature(text)


# ---------------------------------------------------------------- decisions


@pytest.mark.parametrize("level", [2, 3])
def test_t_0002_after_tarso_is_its_true_answer_not_the_uniform_one(game, tarso_bbbbb, level):
    """The audit's case: ``tarso:BBBBB`` at T = 0.002 answered `linde`, the T = ∞ answer."""
    cands = tarso_bbbbb
    assert float(np.sum(prior_weights(game.icf, 0.002)[cands])) < REBASE_MASS
    got = Solver(game, level=level, t=0.002).decide(cands, 2)
    uniform = Solver(game, level=level, t=math.inf).decide(cands, 2)
    oracle = Solver(game, level=level, prior=_decimal_prior(game, cands, 0.002)).decide(cands, 2)
    limit = Solver(game, level=level, prior=_limit_prior(game, cands)).decide(cands, 2)
    assert got.word != uniform.word
    assert got.word == oracle.word == limit.word == "filme"
    assert [a.word for a in got.alternatives] == [a.word for a in oracle.alternatives]
    assert got.choice.bits == pytest.approx(oracle.choice.bits, rel=1e-9, abs=1e-300)
    if level == 3:
        assert got.choice.expected == oracle.choice.expected == limit.choice.expected == 1.0


@pytest.mark.parametrize("t", TINY)
@pytest.mark.parametrize("level", [1, 2, 3])
def test_tiny_temperatures_decide_the_limit(game, tarso_bbbbb, t, level):
    cands = tarso_bbbbb
    got = Solver(game, level=level, t=t).decide(cands, 2)
    limit = Solver(game, level=level, prior=_limit_prior(game, cands)).decide(cands, 2)
    assert got.as_dict() == limit.as_dict()


def test_decide_many_and_policies_go_through_the_rebasing(game, tarso_bbbbb):
    """The batteries' path (`SolverPolicy` → `Solver.decide_many`), sets above and below the
    mass threshold mixed in one batch; `likely` bets on the commonest word too."""
    solver = Solver(game, level=2, t=0.002)
    muito = game.answers.index("muito")
    tarso = game.index_of("tarso")
    codes = np.asarray(solver.sweeper.matrix[tarso])
    with_muito = [int(c) for c in np.nonzero(codes == codes[muito])[0]]
    small = _candidates(game, ["tarso:BBBBB", "filme:BBBYY"])
    states = [tarso_bbbbb, with_muito, small, tarso_bbbbb]
    turns = [2, 2, 3, 2]
    picks = solver.decide_many(states, turns)
    assert picks == [Solver(game, level=2, t=0.002).decide(s, t).index for s, t in zip(states, turns)]
    assert picks[0] == game.answers.index("filme") and picks[1] == muito
    assert Solver(game, level=3, t=0.002).decide_many(states[:3], turns[:3]) == [
        Solver(game, level=3, t=0.002).decide(s, t).index for s, t in zip(states[:3], turns[:3])]
    assert make_policy("entropy", game, t=0.002).choose(tarso_bbbbb, 2) == picks[0]
    assert make_policy("level3", game, t=0.002).choose(tarso_bbbbb, 2) == picks[0]
    assert make_policy("likely", game, t=0.002).choose(tarso_bbbbb, 2) == picks[0]
    assert make_policy("likely", game, t=1e-308).choose(tarso_bbbbb, 2) == picks[0]


@pytest.mark.parametrize("level", [2, 3])
def test_hard_mode_mask_is_passed_through(game, level):
    from termo.engine.hard_mode import restrictive

    session = Session(game, hard=True)
    session.replay(["tarso:BBBBB", "filme:BBBYY"])
    cands = [int(c) for c in session.candidates]
    allowed = session.allowed_probes()
    assert restrictive(allowed) and float(np.sum(prior_weights(game.icf, 0.002)[cands])) < REBASE_MASS
    got = openers.decide(Solver(game, level=level, t=0.002), cands, 3, allowed=allowed)
    oracle = Solver(game, level=level, prior=_decimal_prior(game, cands, 0.002)).decide(cands, 3, allowed=allowed)
    uniform = Solver(game, level=level, t=math.inf).decide(cands, 3, allowed=allowed)
    assert got.word == oracle.word == "nuvem" != uniform.word
    assert "hard mode" in got.reason


def test_rebased_solvers_are_memoised_and_exact_where_the_mass_is_not_tiny(game, tarso_bbbbb):
    solver = Solver(game, level=3, t=0.002)
    assert solver.rebased(tarso_bbbbb) is solver.rebased(tarso_bbbbb)
    everything = list(range(game.n_answers))
    assert solver.rebased(everything) is solver  # mass 1: the global prior, untouched
    sub = solver.rebased(tarso_bbbbb)
    assert sub.custom_prior and sub.prior.sum() == pytest.approx(1.0, abs=1e-15)
    assert openers.cache_key(sub) != openers.cache_key(Solver(game, level=3, t=math.inf))
    for t in (1.0, 0.1, math.inf):  # published temperatures: no set is re-based
        plain = Solver(game, level=3, t=t)
        assert plain.rebased(tarso_bbbbb) is plain and plain.rebased([int(np.argmax(game.icf))]) is plain
    custom = Solver(game, level=3, prior=_limit_prior(game, everything))
    assert custom.rebased(tarso_bbbbb) is custom  # a custom prior is the caller's (§5.1 applies)


def test_rebased_searches_report_progress(game, tarso_bbbbb):
    solver = Solver(game, level=3, t=0.002)
    seen = []
    with solver.tree.reporting(lambda done, total: seen.append((done, total))):
        solver.decide(tarso_bbbbb, 2)
    assert seen and solver.rebased(tarso_bbbbb) is not solver


# ---------------------------------------------------------------- openers and the CLI


def test_level3_opener_at_1e_308_is_its_own_not_the_uniform_one(game):
    solver = Solver(game, level=3, t=1e-308)
    key = openers.cache_key(solver)
    assert key != openers.cache_key(Solver(game, level=3, t=math.inf))
    assert ";T=1e-308;K=" not in key  # entries cached before the fix (NaN prior) are not read
    decision = openers.opener(solver, optimal=True)
    assert decision.word == "muito" and decision.choice.expected == 1.0
    assert openers.lookup(solver)["word"] == "muito"
    assert openers.cache_key(Solver(game, level=3, t=1.0)) == openers.cache_key(Solver(game, level=3))
    assert ";T=1.0;K=" in openers.cache_key(Solver(game, level=3))  # the shipped key never moves


def test_cli_t_0002_is_not_the_uniform_answer():
    rc, out, err = _cli("suggest", "tarso:BBBBB", "--t", "0.002", "--json")
    assert rc == 0 and err == ""
    data = json.loads(out)
    rc, out_inf, _ = _cli("suggest", "tarso:BBBBB", "--t", "inf", "--json")
    uniform = json.loads(out_inf)
    assert (uniform["word"], uniform["expected"]) == ("linde", 2.7578475336322876)
    assert (data["word"], data["expected"]) == ("filme", 1.0)


@pytest.mark.parametrize("t", ["1e-306", "1e-308", "5e-324"])
def test_cli_tiny_temperatures_no_nan_no_warning(t):
    rc, out, err = _cli("suggest", "tarso:BBBBB", "--t", t, "--json")
    assert rc == 0 and err == ""
    assert "NaN" not in out
    data = json.loads(out)
    assert (data["word"], data["expected"]) == ("filme", 1.0)


def test_cli_unrepresentable_temperature_is_one_line():
    rc, out, err = _cli("suggest", "tarso:BBBBB", "--t", "1e-400", "--json")
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "smallest positive" in err and "Traceback" not in err
