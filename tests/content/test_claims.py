"""The lesson's claims (content/transformer/claims.py) judged on made-up runs: each criterion
says yes where the slide's sentence is true and no where it is false, including the cases the
review found on other machines and seeds (a loss of 1e10 that never becomes NaN; a W_V/W_O
ratio of 0.39; a relation carried by a single head)."""

import math

import numpy as np
import pytest

import claims
from experiments_training import DIVERGE_FACTOR, SORT_CHANCE, train


def claim(claim_id: str) -> claims.Claim:
    (found,) = [c for c in claims.CLAIMS if c.id == claim_id]
    return found


def ln_run(no_ln_big: dict) -> dict:
    """A LayerNorm comparison in which everything holds except what `no_ln_big` changes."""
    ok = {"losses": [1.0] * 150, "final": 0.5, "diverged_at": None}
    return {
        "variants": ["post_ln", "pre_ln", "no_ln"],
        "runs": {
            "post_ln": [ok, {**ok, "final": SORT_CHANCE}],
            "pre_ln": [ok, ok],
            "no_ln": [{**ok, "final": 0.1}, no_ln_big],
        },
    }


def test_a_loss_that_explodes_without_becoming_nan_counts_as_diverged():
    """The AMD machine's no-LayerNorm run: the loss sits at 1e10 and never becomes NaN. The
    experiment's training loop stops there and the claim holds; a run that stays at chance
    level does not count as diverged."""
    import torch

    class Exploding(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(()))

    losses = iter([2.0, 2.1, 1e10, 1e10])  # finite throughout: only the limit stops it
    stopped = train(
        Exploding(),
        lambda gen: (),
        lambda model: model.w * 0 + next(losses),  # the weight's gradient is 0
        steps=4,
        lr=1e-3,
        seed=0,
        diverge_above=DIVERGE_FACTOR * SORT_CHANCE,
    )
    assert stopped == [2.0, pytest.approx(2.1)]
    diverged = {"losses": stopped, "final": None, "diverged_at": len(stopped) + 1}
    assert claim("layernorm.no_ln_diverges").holds(ln_run(diverged))
    at_chance = {"losses": [SORT_CHANCE] * 150, "final": SORT_CHANCE, "diverged_at": None}
    assert not claim("layernorm.no_ln_diverges").holds(ln_run(at_chance))


def init_run(vo_without: list[float], spread: list[float] | None = None) -> dict:
    layers = len(vo_without) + 1
    spread = spread or [1.0, 1.0, 1e-7, 1e-7, 1e-7, 1e-7]
    return {
        "layer": list(range(layers)),
        "with_residual": {
            "vo_grad": [1.0] * len(vo_without),
            "qk_grad": [1e-2] * len(vo_without),
            "similarity": [0.5] * layers,
            "spread": [1.0] * len(vo_without),
        },
        "without_residual": {
            "vo_grad": vo_without,
            "qk_grad": [1e-2, 1e-2, 1e-8, 1e-8, 1e-8, 1e-8],
            "similarity": [0.5] + [0.999] * (layers - 1),
            "spread": spread,
        },
    }


def test_the_value_gradient_claim_holds_at_the_seed_the_review_found():
    """Seed 3 on the review's machine: W_V/W_O gradients 0.39-0.80x those with residuals in
    layers 1-4. "Not smaller" would fail there; "does not vanish (> 0.1x)" holds, and a ratio
    of 1e-3 (a vanishing gradient) fails it."""
    alive = claim("init.vo_alive")
    assert alive.holds(init_run([0.39, 0.5, 0.8, 0.6, 1.2, 11.8]))
    assert not alive.holds(init_run([0.39, 0.5, 1e-3, 0.6, 1.2, 11.8]))
    assert claims.collapsed_from(init_run([1.0] * 6)) == 3
    assert claim("init.collapse_early").holds(init_run([1.0] * 6))
    late = init_run([1.0] * 6, spread=[1.0, 1.0, 1.0, 1.0, 1e-7, 1e-7])
    assert claims.collapsed_from(late) == 5 and not claim("init.collapse_early").holds(late)


def heads_run(wide_drop: np.ndarray) -> dict:
    narrow = np.array([[0.6, 0.01, 0.0], [0.0, 0.7, 0.02], [0.0, 0.0, 0.5], [0.0, 0.01, 0.0]])
    relations = ["previous", "next", "first"]
    common = {"relations": relations, "full_accuracy": [0.99, 0.98, 0.99]}
    return {
        "narrow": {**common, "drop": narrow, "specialist": {r: i for i, r in enumerate(relations)}},
        "wide": {**common, "drop": wide_drop, "specialist": {}},
    }


def test_idle_and_shared_heads_are_counted_at_the_stated_threshold():
    """Seed 5 of the review: one relation depends on a single head. The claim is "at least one
    relation is shared by two or more heads", which holds while another relation is shared,
    and fails when every relation has one head."""
    t = claims.DROP_THRESHOLD
    wide = np.zeros((8, 3))
    wide[0, 0] = 0.4  # relation 0: one head only (the review's seed 5)
    wide[1, 1], wide[2, 1] = 0.3, 2 * t  # relation 1: two heads
    wide[3, 2] = 0.25
    wide[4, 2] = t - 1e-3  # just below the threshold: not a sharer, and the head is idle
    run = heads_run(wide)
    assert claims.sharers(run["wide"]) == [1, 2, 1]
    assert claims.idle_heads(run["wide"]) == 4  # heads 4-7
    assert claim("heads.wide_shared").holds(run) and claim("heads.wide_idle").holds(run)
    single = wide.copy()
    single[2, 1] = 0.0
    assert not claim("heads.wide_shared").holds(heads_run(single))
    busy = wide + 2 * t  # every head costs some relation at least the threshold
    assert claims.idle_heads({"drop": busy}) == 0
    assert not claim("heads.wide_idle").holds(heads_run(busy))
    assert claims.specialist_side_effect(run["narrow"]) == pytest.approx(0.02 / 0.7)
    assert claim("heads.side_effect").holds(run)
    leaky = heads_run(wide)
    leaky["narrow"]["drop"] = leaky["narrow"]["drop"].copy()
    leaky["narrow"]["drop"][2, 0] = 0.3  # the "first" head also costs "previous" 60 % of it
    assert not claim("heads.side_effect").holds(leaky)


def test_failures_name_the_claim_and_the_seed():
    good = init_run([1.0] * 6)
    bad = init_run([1.0, 1e-3, 1.0, 1.0, 1.0, 1.0])
    assert claims.failures("init", [good, good], [0, 1]) == []
    (failure,) = claims.failures("init", [good, bad], [0, 7])
    assert failure.startswith("init.vo_alive（种子 7）")
    with pytest.raises(AssertionError, match="init.vo_alive（种子 7）"):
        claims.check("init", [good, bad], [0, 7])
    with pytest.raises(KeyError, match="没有实验"):
        claims.claims_of("no-such-experiment")


def test_the_unseen_position_claim_allows_for_sampling_noise():
    """ "Below 50 % by more than three standard errors": 2000 test sequences give a margin of
    about 3.4 points; 48 % is noise, 40 % is not."""
    run = {"n_test": 2000, "chance": 0.5, "accuracy_unseen_positions": 0.48}
    assert claims.extrapolation_noise(run) == pytest.approx(3 * math.sqrt(0.25 / 2000))
    assert not claim("extra.unseen").holds(run)
    assert claim("extra.unseen").holds({**run, "accuracy_unseen_positions": 0.40})


def test_every_claim_belongs_to_an_experiment_and_is_stated_on_a_slide():
    assert {c.experiment for c in claims.CLAIMS} == set(claims.EXPERIMENTS)
    assert len({c.id for c in claims.CLAIMS}) == len(claims.CLAIMS)
    assert all(c.text and c.slide for c in claims.CLAIMS)


def test_the_robustness_report_fails_on_an_unqualified_claim_that_breaks_anywhere():
    """tests/content/robustness.py's verdict, on made-up worker results: every claim held in
    every variation → no problem; one unqualified claim failing at one seed of one variation →
    a problem naming the claim and the variation; the counts add up over variations."""
    import robustness

    def result(capability: str, threads: int, failing: set[tuple[str, int]]) -> dict:
        held = {c.id: {str(s): (c.id, s) not in failing for s in (0, 1)} for c in claims.CLAIMS}
        return {"capability": capability.upper(), "requested": capability, "threads": threads,
                "held": held, "seconds": {}}  # fmt: skip

    clean = [result("default", 1, set()), result("avx2", 2, set())]
    rows, problems = robustness.report(clean)
    assert problems == [] and all(r["held"] == r["of"] == 4 for r in rows)
    broken = [result("default", 1, set()), result("avx2", 2, {("init.vo_alive", 1)})]
    rows, problems = robustness.report(broken)
    (row,) = [r for r in rows if r["id"] == "init.vo_alive"]
    assert (row["held"], row["of"], row["failed"]) == (3, 4, ["avx2/t2/s1"])
    assert problems == [f"init.vo_alive: {row['claim']} fails at avx2/t2/s1"]
    assert robustness.seed_list("0-2,7") == [0, 1, 2, 7]
