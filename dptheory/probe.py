"""Interactive probing of a bound, for notebooks and scripts.

A :class:`Probe` holds one theorem and a point; ``set(name=value)`` moves the point and returns the
probe, so in a notebook each cell shows the bound (LaTeX), every condition with both sides, and
the crossovers against the theorems it is compared with (HTML)::

    from dptheory.probe import Probe
    p = Probe("yeshokri22.thm4_2", compare=["yeshokri22.composition"], over="K",
              alpha=10, eta="0.02", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, K=50)
    p                      # bound, conditions, crossover with composition
    p.set(alpha=20)        # everything updates
    p.set(eta="0.5")       # a violated condition is shown, the value is marked as not a guarantee

With ipywidgets installed, ``p.widgets("eta", "alpha")`` adds sliders. Everything shown is computed
by the same objects as the CLI (no formula is written here).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import mpmath

from dptheory.core.errors import DPTheoryError, MissingOptionalDependency
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem
from dptheory.core.values import BoundValue


class Probe:
    """One theorem at a movable point, with optional comparisons and crossovers."""

    def __init__(
        self,
        key: str,
        *,
        compare: Sequence[str] = (),
        over: str | None = None,
        start: Any = 1,
        stop: Any = 500,
        dps: int = 30,
        **params: Any,
    ) -> None:
        self.theorem: Theorem = REGISTRY.get(key)
        self.compare = [REGISTRY.get(k) for k in compare]
        self.over = over
        self.start, self.stop = start, stop
        self.dps = dps
        self.params: dict[str, Any] = dict(params)

    def set(self, **changes: Any) -> Probe:
        """Move the point (returns self, so a notebook cell shows the updated probe)."""
        self.params.update(changes)
        return self

    def _own(self, thm: Theorem) -> dict[str, Any]:
        return {k: v for k, v in self.params.items() if k in thm.params}

    @property
    def bound(self) -> BoundValue:
        """The bound at the current point (conditions listed; violations do not raise)."""
        return self.theorem.evaluate(self._own(self.theorem), dps=self.dps, check=False)

    def comparisons(self) -> list[tuple[str, BoundValue | str]]:
        out: list[tuple[str, BoundValue | str]] = []
        for t in self.compare:
            try:
                out.append((t.key, t.evaluate(self._own(t), dps=self.dps, check=False)))
            except DPTheoryError as exc:
                out.append((t.key, str(exc)))
        return out

    def crossovers(self) -> list[tuple[str, Any]]:
        from dptheory.evaluate.crossover import crossover

        if self.over is None:
            return []
        out: list[tuple[str, Any]] = []  # (key, CrossoverResult) or (key, why it failed)
        fixed = {k: v for k, v in self.params.items() if k != self.over}
        for t in self.compare:
            try:
                out.append((t.key, crossover(self.theorem, t, self.over, self.start, self.stop, fixed, dps=self.dps)))
            except DPTheoryError as exc:
                out.append((t.key, str(exc)))
        return out

    def _repr_latex_(self) -> str:
        v = self.bound
        return rf"$\varepsilon \le {self.theorem.latex()} = {mpmath.nstr(v.value, 12)}$"

    def _repr_html_(self) -> str:
        v = self.bound
        warn = "" if v.valid else " <b>(a condition is violated: not a guarantee)</b>"
        rows = "".join(
            f"<tr><td><code>{html.escape(c.text)}</code></td><td>{c.status}</td><td>{html.escape(c.lhs)}</td>"
            f"<td>{html.escape(c.rhs)}</td></tr>"
            for c in v.conditions
            if c.condition.kind != "domain"
        )
        parts = [
            f"<p><b>{html.escape(self.theorem.key)}</b> = {mpmath.nstr(v.value, 15)} {v.unit} "
            f"({v.direction} bound){warn}</p>",
            "<table><tr><th>condition</th><th>status</th><th>lhs</th><th>rhs</th></tr>" + rows + "</table>",
        ]
        comps = self.comparisons()
        if comps:
            items = "".join(
                f"<li>{html.escape(k)}: "
                + (html.escape(x) if isinstance(x, str) else f"{mpmath.nstr(x.value, 15)} {x.unit}")
                + "</li>"
                for k, x in comps
            )
            parts.append(f"<p>compared with:</p><ul>{items}</ul>")
        for k, res in self.crossovers():
            if isinstance(res, str):
                parts.append(f"<p>crossover with {html.escape(k)}: {html.escape(res)}</p>")
            elif res.value is None:
                parts.append(
                    f"<p>{html.escape(self.theorem.key)} is not below {html.escape(k)} at the end of "
                    f"{self.over} in [{self.start}, {self.stop}]</p>"
                )
            else:
                parts.append(
                    f"<p>{html.escape(self.theorem.key)} stays below {html.escape(k)} for "
                    f"{self.over} &ge; {res.value} (order changes {res.changes} times)</p>"
                )
        return "\n".join(parts)

    def __repr__(self) -> str:
        v = self.bound
        return f"Probe({self.theorem.key} = {mpmath.nstr(v.value, 12)} {v.unit}, valid={v.valid})"

    def widgets(self, *names: str) -> Any:  # pragma: no cover - needs ipywidgets and a notebook
        """Sliders for the named parameters (requires ipywidgets)."""
        from dptheory.core.extras import missing_message

        try:
            import ipywidgets
            from IPython.display import HTML, display
        except ModuleNotFoundError as exc:
            raise MissingOptionalDependency(missing_message(exc, "Probe.widgets") or str(exc)) from None

        out = ipywidgets.Output()

        def redraw(**kw: Any) -> None:
            self.set(**{k: (int(v) if self.theorem.notation[k].domain.is_integer else repr(v)) for k, v in kw.items()})
            out.clear_output()
            with out:
                display(HTML(self._repr_html_()))

        sliders = {}
        for n in names:
            v = float(self.params[n])
            if self.theorem.notation[n].domain.is_integer:
                sliders[n] = ipywidgets.IntSlider(value=int(v), min=1, max=max(10, int(4 * v)))
            else:
                sliders[n] = ipywidgets.FloatLogSlider(
                    value=v, base=10, min=mpmath.log10(v) - 2, max=mpmath.log10(v) + 2
                )
        ipywidgets.interactive(redraw, **sliders)
        return ipywidgets.VBox([*sliders.values(), out])
