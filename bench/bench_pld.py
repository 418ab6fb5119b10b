"""The composition baselines in (epsilon, delta): PLD (tight) against RDP, and the Ye & Shokri hidden-state bounds.

Run from the repository root: ``python bench/bench_pld.py [table] [curves] [gap] [timing] [readoff] [compose]
[buckets]`` (default: all seven). Prints the numbers quoted in ``docs/privacy_baselines_pld.md`` and
``docs/performance.md``; nothing is asserted.

* ``table``: Ye & Shokri 2022 (arXiv 2203.05363) Figure 2 setting (eta = 0.02, lam = 1, beta = 4,
  S_g = 4, sigma = 2, n = 50, b = 2, so q = 0.04, z = 10, 25 steps per epoch), delta = 1e-5,
  K = 1, 10, 50, 100, 200: Thm 4.2 and Thm 4.3 (``dptheory.privacy.conversion.convert``, order
  optimised), the RDP composition baseline, the PLD bracket (add/remove at z; replace-one at 2z) and
  prv-accountant's bracket as the independent column.
* ``curves``: ``epsilon_delta_curve`` for K = 1..200, both theorems, both neighbouring relations:
  the first epoch at which each bound is below each baseline, and the points around it.
* ``gap``: RDP-based epsilon / PLD epsilon - 1 over a grid of (q, z, steps), delta = 1e-5.
* ``timing``: dp-accounting PLD bracket against prv-accountant at a comparable bracket width, one run.
* ``readoff``: epsilon at delta from one composed PLD, dp-accounting's ``get_epsilon_for_delta`` (a Python loop)
  against ours (``dptheory.privacy.pld_fast.epsilon_for_delta``, array scans) on the same distributions: the
  time ratio and the largest relative difference.
* ``compose``: the ``steps``-fold self-composition of the single-step PLDs the claims use, dp-accounting's
  ``self_compose`` against ours (``dptheory.privacy.pld_fast.self_compose``) on the same distributions: the time
  ratio, and each one's largest difference from the same convolution taken wholly in long double (in units of the
  double epsilon times the largest point).
* ``buckets``: the optimistic single-step PLD (privacy buckets), dp-accounting's ``from_gaussian_mechanism`` against
  ours (``dptheory.privacy.pld_fast.gaussian_privacy_buckets``) at the grids the README's ``compare --run`` example
  and the claims use: the time ratio and whether the two PLDs are the same bit for bit.
"""

from __future__ import annotations

import itertools
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from dptheory.papers.yeshokri22.epsdelta import baseline_mechanism, epsilon_delta_curve
from dptheory.privacy.pld import (
    pld_epsilon,
    rdp_epsilon_best,
    theorem_epsilon,
)
from dptheory.testing.peers import prv_epsilon_bracket as prv_bracket

FIG2 = {"eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}
DELTA = 1e-5
K_TABLE = (1, 10, 50, 100, 200)


def table() -> None:
    q, z, per_epoch = baseline_mechanism(FIG2)
    print(f"# Figure 2 setting: q = {q}, z = {z}, {per_epoch} steps/epoch, delta = {DELTA:g}")
    print(
        "| K | steps | Thm 4.2 | Thm 4.3 | RDP composition | PLD add/remove [lower, upper] (rel. width) "
        "| PLD replace-one at 2z [lower, upper] | prv-accountant [lower, upper] | RDP/PLD - 1 |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for K in K_TABLE:
        steps = K * per_epoch
        t42 = theorem_epsilon("yeshokri22.thm4_2", {**FIG2, "K": K}, DELTA)
        t43 = theorem_epsilon("yeshokri22.thm4_3", {**FIG2, "K": K}, DELTA)
        rdp = rdp_epsilon_best(q, z, steps, DELTA)
        t0 = time.perf_counter()
        ar = pld_epsilon(q, z, steps, DELTA, rel_width=1e-3)
        t_pld = time.perf_counter() - t0
        rep = pld_epsilon(q, 2 * z, steps, DELTA, rel_width=1e-3, neighbouring="replace_one")
        t0 = time.perf_counter()
        plo, _pest, pup = prv_bracket(q, z, steps, DELTA, 3e-3)
        t_prv = time.perf_counter() - t0
        print(
            f"| {K} | {steps} | {float(t42.epsilon):.6f} (alpha {float(t42.order):.2f}) "
            f"| {float(t43.epsilon):.6f} (alpha {float(t43.order):.2f}) "
            f"| {float(rdp.epsilon):.6f} (alpha {float(rdp.order):.2f}) "
            f"| [{ar.epsilon_lower:.6f}, {ar.epsilon_upper:.6f}] ({ar.rel_width:.1e}) "
            f"| [{rep.epsilon_lower:.6f}, {rep.epsilon_upper:.6f}] "
            f"| [{plo:.6f}, {pup:.6f}] | {float(rdp.epsilon) / ar.epsilon_upper - 1:.2%} |"
            f"  <!-- PLD {t_pld:.1f}s, prv {t_prv:.1f}s -->"
        )


def curves() -> None:
    ks = list(range(1, 201))
    for key in ("yeshokri22.thm4_2", "yeshokri22.thm4_3"):
        for rel in ("add_or_remove", "replace_one"):
            t0 = time.perf_counter()
            c = epsilon_delta_curve(key, FIG2, ks, DELTA, neighbouring=rel)
            dt = time.perf_counter() - t0
            s = c.summary()
            print(f"# {key}, PLD {rel} (z_pld = {c.z_pld:g}): {dt:.0f} s; {s}")
            for b in ("rdp", "pld"):
                first = s[b]["first_win"]
                if first is None:
                    print(f"  never below the {b} baseline for K <= 200; last point: {c.points[-1].to_dict()}")
                    continue
                for p in c.points:
                    if first - 2 <= p.K <= first:
                        print(
                            f"  {b}: K = {p.K}: hidden {p.hidden:.6f}, rdp {p.rdp:.6f}, pld "
                            f"[{p.pld.epsilon_lower:.6f}, {p.pld.epsilon_upper:.6f}] -> vs_rdp {p.vs_rdp}, "
                            f"vs_pld {p.vs_pld}"
                        )


def gap() -> None:
    qs, zs, ts = (0.001, 0.01, 0.04, 0.1), (0.8, 1.0, 2.0, 5.0, 10.0), (100, 1000, 10000)
    ratios = []
    print("| q | z | steps | RDP | PLD [lower, upper] | RDP/PLD_upper - 1 | RDP/PLD_lower - 1 |")
    print("|---|---|---|---|---|---|---|")
    for q, z, t in itertools.product(qs, zs, ts):
        rdp = float(rdp_epsilon_best(q, z, t, DELTA).epsilon)
        p = pld_epsilon(q, z, t, DELTA, rel_width=1e-2)
        lo, hi = rdp / p.epsilon_upper - 1, rdp / p.epsilon_lower - 1 if p.epsilon_lower > 0 else float("inf")
        ratios.append((lo, hi, q, z, t))
        print(f"| {q} | {z} | {t} | {rdp:.6g} | [{p.epsilon_lower:.6g}, {p.epsilon_upper:.6g}] | {lo:.2%} | {hi:.2%} |")
    lows = [r[0] for r in ratios]
    print(f"# {len(ratios)} cases: RDP/PLD_upper - 1 from {min(lows):.2%} to {max(lows):.2%}")


def timing() -> None:
    q, z = 0.04, 10.0
    print("| steps | dp-accounting bracket (rel. width) | time | prv-accountant bracket | time | time ratio prv/dp |")
    print("|---|---|---|---|---|---|")
    for steps in (1000, 5000, 20000):
        t0 = time.perf_counter()
        r = pld_epsilon(q, z, steps, DELTA, rel_width=1e-2)
        t_dp = time.perf_counter() - t0
        eps_error = r.width / 2  # prv's bracket is about +-eps_error: same total width
        t0 = time.perf_counter()
        lo, _est, up = prv_bracket(q, z, steps, DELTA, eps_error)
        t_prv = time.perf_counter() - t0
        print(
            f"| {steps} | [{r.epsilon_lower:.6f}, {r.epsilon_upper:.6f}] ({r.rel_width:.1e}) | {t_dp:.2f} s "
            f"| [{lo:.6f}, {up:.6f}] | {t_prv:.2f} s | {t_prv / t_dp:.1f} |"
        )


def readoff() -> None:
    from dptheory.privacy.pld import _composed
    from dptheory.privacy.pld_fast import epsilon_for_delta

    q, z, per_epoch = baseline_mechanism(FIG2)
    print("| K | grid | points | dp-accounting | ours | ratio | max relative difference |")
    print("|---|---|---|---|---|---|---|")
    for K, h, pessimistic in ((75, 1e-4, True), (75, 2.0**-15.5, False), (200, 1e-4, True), (200, 2.0**-16, False)):
        pld = _composed(q, z, K * per_epoch, "add_or_remove", h, pessimistic)
        times, worst = [0.0, 0.0], 0.0
        for delta in (1e-3, 1e-5, 1e-7, 1e-9):
            t0 = time.perf_counter()
            theirs = pld.get_epsilon_for_delta(delta)
            t1 = time.perf_counter()
            ours = epsilon_for_delta(pld, delta)
            t2 = time.perf_counter()
            times[0] += t1 - t0
            times[1] += t2 - t1
            worst = max(worst, abs(ours - theirs) / abs(theirs))
        points = max(pld._pmf_remove.size, pld._pmf_add.size)
        print(f"| {K} | {h:.3g} ({'upper' if pessimistic else 'lower'}) | {points} | {times[0] * 250:.2f} ms "
              f"| {times[1] * 250:.2f} ms | {times[0] / times[1]:.1f}x | {worst:.1e} |")


def compose() -> None:
    import numpy as np
    from dp_accounting.pld import common
    from scipy import fft

    from dptheory.privacy.pld import _single
    from dptheory.privacy.pld_fast import pmfs, self_compose

    def error(pmf, single_pmf, steps: int) -> float:  # against the whole convolution in long double
        dense = single_pmf if hasattr(single_pmf, "_probs") else single_pmf.to_dense_pmf()
        probs = np.asarray(dense._probs)
        lower, upper = common.compute_self_convolve_bounds(probs, steps, 1e-15)
        size = fft.next_fast_len(max(upper - lower + 1, probs.size))
        cyclic = np.real(fft.ifft(fft.fft(probs.astype(np.longdouble), size) ** steps))
        exact = np.roll(cyclic, -lower)[: upper - lower + 1]
        return float(np.max(np.abs(np.asarray(pmf._probs) - exact)) / (np.finfo(float).eps * np.max(exact)))

    q, z, per_epoch = baseline_mechanism(FIG2)
    cases = [(q, z, 75 * per_epoch, 1e-4, True), (q, z, 200 * per_epoch, 2.0**-16, False),
             (0.004, 1.0, 2500, 1e-4, True), (0.004, 1.0, 2500, 1e-4, False)]
    print("| q | z | steps | grid | points | dp-accounting | ours | ratio | error: dp-accounting | error: ours |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for q_, z_, steps, h, pessimistic in cases:
        single = _single(q_, z_, "add_or_remove", h, pessimistic)
        t0 = time.perf_counter()
        theirs = single.self_compose(steps)
        t1 = time.perf_counter()
        ours = self_compose(single, steps)
        t2 = time.perf_counter()
        err_t, err_o = (max(error(a, b, steps) for a, b in zip(pmfs(c), pmfs(single), strict=True))
                        for c in (theirs, ours))
        points = max(pmf.size for pmf in pmfs(theirs))
        print(f"| {q_:g} | {z_:g} | {steps} | {h:.3g} ({'upper' if pessimistic else 'lower'}) | {points} "
              f"| {(t1 - t0) * 1e3:.0f} ms | {(t2 - t1) * 1e3:.0f} ms | {(t1 - t0) / (t2 - t1):.1f}x | {err_t:.0f} "
              f"| {err_o:.1f} |")


def buckets() -> None:
    import numpy as np
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    from dptheory.privacy.pld_fast import gaussian_privacy_buckets, pmfs

    def same(a, b) -> bool:
        return a._symmetric == b._symmetric and all(type(x) is type(y) and x._infinity_mass == y._infinity_mass and (
            list(x._loss_probs.items()) == list(y._loss_probs.items()) if hasattr(x, "_loss_probs") else
            x._lower_loss == y._lower_loss and np.array_equal(np.asarray(x._probs), np.asarray(y._probs)))
            for x, y in zip(pmfs(a), pmfs(b), strict=True))

    print("| z | q | grid | relation | points | dp-accounting | ours | ratio | identical |")
    print("|---|---|---|---|---|---|---|---|---|")
    for z, q, h, relation in ((1.1, 0.01, 2.0**-19, "add_or_remove"), (2.2, 0.01, 2.0**-19, "replace_one"),
                              (10.0, 0.04, 2.0**-15.5, "add_or_remove"), (1.0, 0.004, 1e-4, "add_or_remove")):
        rel = NeighboringRelation.ADD_OR_REMOVE_ONE if relation == "add_or_remove" else NeighboringRelation.REPLACE_ONE
        t0 = time.perf_counter()
        theirs = pld_lib.from_gaussian_mechanism(standard_deviation=z, sensitivity=1.0, pessimistic_estimate=False,
                                                 value_discretization_interval=h, sampling_prob=q,
                                                 use_connect_dots=False, neighboring_relation=rel)
        t1 = time.perf_counter()
        ours = gaussian_privacy_buckets(z, q, h, False, replace_one=relation == "replace_one")
        t2 = time.perf_counter()
        points = theirs._pmf_remove.size
        print(f"| {z:g} | {q:g} | {h:.3g} | {relation} | {points} | {t1 - t0:.2f} s | {t2 - t1:.3f} s "
              f"| {(t1 - t0) / (t2 - t1):.1f}x | {same(ours, theirs)} |")


if __name__ == "__main__":
    sections = sys.argv[1:] or ["table", "curves", "gap", "timing", "readoff", "compose", "buckets"]
    for name in sections:
        {"table": table, "curves": curves, "gap": gap, "timing": timing, "readoff": readoff, "compose": compose,
         "buckets": buckets}[name]()
