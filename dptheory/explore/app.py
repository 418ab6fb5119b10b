"""The explorer page (Panel widgets, Bokeh plot) over :class:`dptheory.explore.model.Explorer`.

Why Panel: it is the HoloViz project's app layer over Bokeh, maintained, pip-installable, serves a
page from a plain Python process with no JavaScript build, and keeps the state in Python, so every
number shown comes from the same objects as the CLI (the model layer). Everything on the page is
rendered from the model's results; no bound is computed here.

Updates: the readouts are recomputed at once (a tenth of a second); the plot, crossovers, (eps, delta)
and the validity strips follow from a worker thread (up to a second or two; a spinner meanwhile).
"""

from __future__ import annotations

import html
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from functools import partial
from typing import Any

import numpy as np

from dptheory.core.errors import DPTheoryError
from dptheory.explore.model import CROSSOVER_DPS, READOUT_DPS, Control, Explorer, Readout

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
OK_COLOR, BAD_COLOR = "#cfe8cf", "#f3b0b0"

CSS = """
:host { font-family: system-ui, sans-serif; font-size: 13px; }
.dpt-card { border: 1px solid #bbb; border-left: 6px solid #2e7d32; border-radius: 4px; padding: 6px 10px; }
.dpt-card.dpt-bad { border-left-color: #c62828; background: #fff5f5; }
.dpt-key { font-weight: 600; font-family: monospace; }
.dpt-title { color: #444; }
.dpt-cite { color: #777; font-size: 11px; }
.dpt-val { font-size: 16px; margin: 4px 0; }
.dpt-value { font-family: monospace; font-weight: 700; }
.dpt-status-ok { color: #2e7d32; font-weight: 600; }
.dpt-status-bad { color: #b71c1c; font-weight: 700; }
table.dpt { border-collapse: collapse; margin-top: 3px; }
table.dpt td, table.dpt th { padding: 1px 8px 1px 0; text-align: left; font-size: 12px; }
tr.dpt-violated td { color: #b71c1c; font-weight: 600; }
code { font-size: 11px; color: #555; }
.dpt-strip { height: 7px; border-radius: 3px; margin: 0 10px; }
.dpt-strip-text { color: #b71c1c; font-size: 11px; margin: 2px 10px 0 10px; }
.dpt-error { color: #b71c1c; font-weight: 600; }
"""


def _esc(x: Any) -> str:
    return html.escape(str(x))


def short(key: str) -> str:
    return key.split(".", 1)[-1]


# ----------------------------------------------------------------------------- HTML renderers (pure)
def card_html(r: Readout, command: str) -> str:
    """One theorem's readout: value (12 digits), condition status, conditions table, the eval command."""
    cls = "dpt-card" + ("" if r.valid else " dpt-bad")
    head = (
        f'<div><span class="dpt-key">{_esc(r.key)}</span> <span class="dpt-title">{_esc(r.title)}</span>'
        f'<br><span class="dpt-cite">{_esc(r.citation)}</span></div>'
    )
    if r.value is not None:
        val = (
            f'<div class="dpt-val">value = <span class="dpt-value" data-key="{_esc(r.key)}">{_esc(r.value)}</span>'
            f" {_esc(r.unit)} <small>({_esc(r.direction)} bound; {_esc(r.quantity)}; "
            f"{READOUT_DPS} digits)</small></div>"
        )
    else:
        val = (
            f'<div class="dpt-val">value = <span class="dpt-value" data-key="{_esc(r.key)}">undefined</span></div>'
            f'<div class="dpt-error">{_esc(r.error)}</div>'
        )
    if r.error is not None and r.value is None:
        status = '<div class="dpt-status-bad">NOT EVALUATED: the formula is undefined at this point</div>'
    elif r.violated:
        items = "; ".join(f"{_esc(c.text)} ({_esc(c.gloss)}): lhs = {_esc(c.lhs)}, rhs = {_esc(c.rhs)}"
                          for c in r.violated)
        status = (f'<div class="dpt-status-bad">CONDITION VIOLATED: {items}. '
                  "The value is not a guarantee.</div>")
    else:
        undecided = [c for c in r.conditions if c.status == "undecided"]
        status = ('<div class="dpt-status-ok">all conditions hold</div>' if not undecided else
                  f'<div class="dpt-status-bad">{len(undecided)} condition(s) undecided at this point</div>')
    rows = "".join(
        f'<tr class="dpt-{_esc(c.status)}"><td><code>{_esc(c.text)}</code></td><td>{_esc(c.status)}</td>'
        f"<td>lhs = {_esc(c.lhs)}</td><td>rhs = {_esc(c.rhs)}</td></tr>"
        for c in r.conditions
    )
    table = f'<table class="dpt">{rows}</table>' if rows else ""
    note = "" if r.valid else " --no-check"
    return (f'<div class="{cls}" data-key="{_esc(r.key)}">{head}{val}{status}{table}'
            f"<code>{_esc(command)}{note}</code></div>")


def strip_html(c: Control, segments: Sequence[Any], n: int) -> str:
    """A bar under the slider: green where every selected theorem's conditions hold, red elsewhere."""
    if n <= 1:
        return ""
    stops = []
    for s in segments:
        a = 100.0 * s.first / (n - 1) if n > 1 else 0.0
        b = 100.0 * s.last / (n - 1) if n > 1 else 100.0
        # widen each run by half a step so adjacent runs meet halfway between slider positions
        half = 50.0 / (n - 1)
        a, b = max(0.0, a - half), min(100.0, b + half)
        col = OK_COLOR if s.valid else BAD_COLOR
        stops.append(f"{col} {a:.3f}%, {col} {b:.3f}%")
    bar = f'<div class="dpt-strip" style="background: linear-gradient(to right, {", ".join(stops)});"></div>'
    texts = []
    for s in segments:
        if s.valid:
            continue
        where = f"{c.name} = {s.lo}" if s.lo == s.hi else f"{c.name} in [{s.lo}, {s.hi}]"
        by_cond: dict[str, list[str]] = {}
        for k, t in s.failing:
            by_cond.setdefault(t, []).append(short(k))
        what = "; ".join(f"{t} fails ({', '.join(ks)})" for t, ks in by_cond.items())
        texts.append(f"{_esc(where)}: {_esc(what)}")
    text = "".join(f'<div class="dpt-strip-text">{t}</div>' for t in texts)
    return f'<div class="dpt-strip-wrap" data-name="{_esc(c.name)}">{bar}{text}</div>'


def crossover_html(model: Explorer, results: Sequence[tuple[str, Any]]) -> str:
    ax, lo, hi = model.axis, model.axis_lo, model.axis_hi
    if model.baseline is None:
        return "<p>crossover: choose a baseline (needs two theorems)</p>"
    items = []
    for key, r in results:
        if isinstance(r, str):
            items.append(f"<li><b>{_esc(short(key))}</b> vs {_esc(short(model.baseline))}: "
                         f'<span class="dpt-error">not available: {_esc(r)}</span></li>')
        elif r.value is None:
            items.append(f"<li><b>{_esc(short(key))}</b> is not below {_esc(short(model.baseline))} at the end of "
                         f"{_esc(ax)} in [{_esc(lo)}, {_esc(hi)}]: no crossover</li>")
        elif r.always_below:
            items.append(f"<li><b>{_esc(short(key))}</b> &lt; {_esc(short(model.baseline))} for every {_esc(ax)} "
                         f"in [{_esc(lo)}, {_esc(hi)}]</li>")
        else:
            items.append(
                f'<li class="dpt-crossover" data-key="{_esc(key)}"><b>{_esc(short(key))}</b> stays below '
                f"{_esc(short(model.baseline))} for {_esc(ax)} &ge; <b>{_esc(r.value)}</b> (up to {_esc(hi)}; "
                f"confirmed at {CROSSOVER_DPS} digits; the order changes {r.changes} time"
                f"{'' if r.changes == 1 else 's'} along the range)</li>"
            )
    return f"<ul>{''.join(items)}</ul>" if items else "<p>no other theorem to compare</p>"


def epsdelta_html(rows: Sequence[Any]) -> str:
    body = []
    for r in rows:
        if r.error:
            body.append(f'<tr><td class="dpt-key">{_esc(short(r.key))}</td>'
                        f'<td colspan="3" class="dpt-error">{_esc(r.error)}</td></tr>')
        else:
            edge = " (optimum at the edge of the searched orders)" if r.at_edge else ""
            body.append(f'<tr><td class="dpt-key">{_esc(short(r.key))}</td>'
                        f'<td><span class="dpt-eps" data-key="{_esc(r.key)}">{_esc(r.epsilon)}</span></td>'
                        f"<td>{_esc(r.order)}{edge}</td><td>{_esc(r.rdp_at_order)}</td></tr>")
    delta = _esc(rows[0].delta) if rows else ""
    return (f'<table class="dpt"><tr><th>theorem</th><th>epsilon at delta = {delta}</th><th>best order alpha</th>'
            f"<th>RDP at that order</th></tr>{''.join(body)}</table>"
            "<small>improved conversion (Balle et al. 2020, Thm 21), order optimised over a continuous range "
            "(the explorer's alpha is not used); same digits as <code>dptheory convert KEY ... --delta D "
            "--dps 12</code>. A condition that fails whatever the order is reported instead.</small>")


# ----------------------------------------------------------------------------- the page
class ExplorerView:
    """Widgets and panes over one :class:`Explorer` (one per browser session)."""

    def __init__(self, model: Explorer) -> None:
        import panel as pn

        self.pn = pn
        self.model = model
        self._guard = False
        self.sliders: dict[str, Any] = {}
        self.fields: dict[str, Any] = {}
        self.strips: dict[str, Any] = {}
        self.options: dict[str, list[str]] = {}
        self.messages = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width")
        controls = [self._control(c) for c in model.controls]

        self.axis = pn.widgets.Select(label="plot against", options=[c.name for c in model.controls],
                                      value=model.axis, width=110)
        self.axis_lo = pn.widgets.TextInput(label="from", value=model.axis_lo, width=80)
        self.axis_hi = pn.widgets.TextInput(label="to", value=model.axis_hi, width=80)
        self.baseline = pn.widgets.Select(label="crossover against", options=["(none)", *model.keys],
                                          value=model.baseline or "(none)", width=210)
        self.delta = pn.widgets.TextInput(label="delta", value=model.delta, width=90)
        self.cross_button = pn.widgets.Button(label="compute crossover", color="primary", width=160,
                                              visible=not self._integer_axis())
        self.axis.param.watch(self._on_axis, "value")
        for w in (self.axis_lo, self.axis_hi):
            w.param.watch(self._on_range, "value")
        self.baseline.param.watch(self._on_baseline, "value")
        self.delta.param.watch(self._on_delta, "value")
        self.cross_button.on_click(lambda _e: self.update(force_cross=True))

        self.cards = {k: pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width") for k in model.keys}
        self.plot = pn.pane.Bokeh(None, sizing_mode="stretch_width", height=400)
        self.cross = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width", css_classes=["dpt-cross"])
        self.eps = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width", css_classes=["dpt-eps"])
        self._gen = 0
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dptheory-explore")

        names = ", ".join(model.keys)
        header = pn.pane.HTML(
            f"<h2 style='margin:4px 0'>dptheory explorer</h2><div>{_esc(names)}</div>",
            stylesheets=[CSS], sizing_mode="stretch_width",
        )
        left = pn.Column(
            pn.pane.HTML("<b>parameters</b> (slider or exact value, e.g. 0.02 or 1/3; Enter to apply)",
                         stylesheets=[CSS]),
            *controls, self.messages, width=390,
        )
        right = pn.Column(
            pn.Row(*self.cards.values(), sizing_mode="stretch_width") if len(model.keys) <= 3
            else pn.Column(*self.cards.values(), sizing_mode="stretch_width"),
            pn.Row(self.axis, self.axis_lo, self.axis_hi, self.baseline, self.cross_button),
            self.plot,
            pn.pane.HTML("<b>crossover</b>", stylesheets=[CSS]), self.cross,
            pn.Row(pn.pane.HTML("<b>(epsilon, delta)-DP</b>", stylesheets=[CSS]), self.delta),
            self.eps,
            sizing_mode="stretch_width",
        )
        self.layout = pn.Column(header, pn.Row(left, right, sizing_mode="stretch_width"),
                                sizing_mode="stretch_width")
        for r in model.readouts():
            self.cards[r.key].object = card_html(r, model.command(r.key))
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.onload(self.update)  # after the page is shown
            pn.state.on_session_destroyed(lambda _ctx: self._executor.shutdown(wait=False, cancel_futures=True))
        else:
            self.update()

    # -------------------------------------------------------------- controls
    def _control(self, c: Control) -> Any:
        pn = self.pn
        v = self.model.values[c.name]
        if c.integer:
            iv = int(v)
            slider = pn.widgets.IntSlider(start=min(int(c.lo), iv), end=max(int(c.hi), iv), step=1, value=iv,
                                          show_value=False, sizing_mode="stretch_width",
                                          css_classes=[f"dpt-slider-{c.name}"])
        else:
            opts = c.options()
            if v not in opts:
                opts = _insert(opts, v)
            self.options[c.name] = opts
            slider = pn.widgets.DiscreteSlider(options=opts, value=v, show_value=False,
                                               sizing_mode="stretch_width", css_classes=[f"dpt-slider-{c.name}"])
        field = pn.widgets.TextInput(value=v, width=110, css_classes=[f"dpt-field-{c.name}"])
        self.sliders[c.name], self.fields[c.name] = slider, field
        slider.param.watch(self._slider_cb(c), "value_throttled")
        field.param.watch(self._field_cb(c), "value")
        strip = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width", margin=(0, 0))
        self.strips[c.name] = strip
        scale = "integer, step 1" if c.integer else ("log scale" if c.log else "linear")
        label = pn.pane.HTML(
            f"<b>{_esc(c.name)}</b> <span class='dpt-title'>{_esc(c.meaning)}</span> "
            f"<span class='dpt-cite'>[{_esc(_fmt_num(c.lo))}, {_esc(_fmt_num(c.hi))}; {scale}]</span>",
            stylesheets=[CSS], sizing_mode="stretch_width", margin=(6, 10, 0, 10),
        )
        return pn.Column(pn.Row(label, field, sizing_mode="stretch_width"), slider, strip,
                         sizing_mode="stretch_width", margin=(0, 0, 4, 0))

    def _slider_cb(self, c: Control) -> Callable[[Any], None]:
        def cb(event: Any) -> None:
            if self._guard or event.new is None:
                return
            self._apply(c, str(event.new), from_slider=True)

        return cb

    def _field_cb(self, c: Control) -> Callable[[Any], None]:
        def cb(event: Any) -> None:
            if self._guard:
                return
            self._apply(c, str(event.new), from_slider=False)

        return cb

    def _apply(self, c: Control, raw: str, *, from_slider: bool) -> None:
        try:
            value = self.model.set(c.name, raw)
        except DPTheoryError as exc:
            self.messages.object = f'<div class="dpt-error">{_esc(exc)}</div>'
            return
        self.messages.object = ""
        self._guard = True
        try:
            self.fields[c.name].value = value
            if not from_slider:
                slider = self.sliders[c.name]
                if c.integer:
                    iv = int(value)
                    slider.start, slider.end = min(slider.start, iv), max(slider.end, iv)
                    slider.value = iv
                else:
                    if value not in self.options[c.name]:
                        self.options[c.name] = _insert(self.options[c.name], value)
                        slider.options = self.options[c.name]
                    slider.value = value
        finally:
            self._guard = False
        self.refresh()

    def _on_axis(self, event: Any) -> None:
        self.model.set_axis(event.new)
        self._guard = True
        try:
            self.axis_lo.value, self.axis_hi.value = self.model.axis_lo, self.model.axis_hi
        finally:
            self._guard = False
        self.cross_button.visible = not self._integer_axis()
        self.update()

    def _on_range(self, _event: Any) -> None:
        if self._guard:
            return
        try:
            self.model.set_axis(self.model.axis, self.axis_lo.value, self.axis_hi.value)
        except DPTheoryError as exc:
            self.messages.object = f'<div class="dpt-error">{_esc(exc)}</div>'
            return
        self.messages.object = ""
        self.update()

    def _on_baseline(self, event: Any) -> None:
        self.model.baseline = None if event.new == "(none)" else event.new
        self.update()

    def _on_delta(self, event: Any) -> None:
        try:
            self.model.set_delta(event.new)
        except DPTheoryError as exc:
            self.messages.object = f'<div class="dpt-error">{_esc(exc)}</div>'
            return
        self.messages.object = ""
        self.update()

    def _integer_axis(self) -> bool:
        return self.model.control[self.model.axis].integer

    # -------------------------------------------------------------- refresh
    def refresh(self) -> None:
        """After a parameter change: the readouts now, everything else from the worker (:meth:`update`)."""
        for r in self.model.readouts():
            self.cards[r.key].object = card_html(r, self.model.command(r.key))
        self.update()

    def _positions(self) -> dict[str, list[str]]:
        out = {}
        for c in self.model.controls:
            opts = self.options.get(c.name)
            if opts is None:  # integer slider: its current range, every integer (evenly subsampled if long)
                opts = integer_positions(int(self.sliders[c.name].start), int(self.sliders[c.name].end))
            out[c.name] = list(opts)
        return out

    def update(self, force_cross: bool = False) -> None:
        """Plot, crossover, (eps, delta) and validity strips for the current state.

        In a served session they are computed on a worker thread from a snapshot of the state and
        applied on the next tick, part by part (a newer change makes older results stale: they are
        dropped), so the page stays responsive; without a session (tests) they are computed inline.
        """
        self._gen += 1
        gen, snap, positions = self._gen, self.model.snapshot(), self._positions()
        doc = self.pn.state.curdoc
        if doc is None or doc.session_context is None:
            for part, value in self._compute(gen, snap, positions, force_cross):
                self._show(gen, part, value)
            return
        for pane in (self.plot, self.cross, self.eps):
            pane.loading = True

        def work() -> None:
            try:
                for part, value in self._compute(gen, snap, positions, force_cross):
                    doc.add_next_tick_callback(partial(self._show, gen, part, value))
            except Exception as exc:  # a bug: show it on the page rather than lose it in a thread
                msg = f'<div class="dpt-error">internal error: {_esc(type(exc).__name__)}: {_esc(exc)}</div>'
                doc.add_next_tick_callback(partial(self._show, gen, "error", msg))

        self._executor.submit(work)

    def _compute(self, gen: int, snap: Explorer, positions: dict[str, list[str]],
                 force_cross: bool) -> Iterator[tuple[str, Any]]:
        crosses: list[tuple[str, Any]] = []
        if snap.baseline is None:
            cross = crossover_html(snap, [])
        elif not snap.control[snap.axis].integer and not force_cross:
            cross = (f"<p>along a real parameter the crossover scans 2000 points and bisects at "
                     f"{CROSSOVER_DPS} digits (several seconds): press <i>compute crossover</i></p>")
        else:
            crosses = snap.crossovers()
            cross = crossover_html(snap, crosses)
        yield "plot", make_figure(snap, crosses)
        yield "cross", cross
        if gen != self._gen:
            return
        for name, opts in positions.items():
            yield "strip:" + name, strip_html(snap.control[name], snap.validity(name, opts), len(opts))
        if gen != self._gen:
            return
        yield "eps", epsdelta_html(snap.epsilon_delta())

    def _show(self, gen: int, part: str, value: Any) -> None:
        if gen != self._gen and part != "error":
            return  # a newer change is being computed
        if part == "plot":
            self.plot.object = value
            self.plot.loading = False
        elif part == "cross":
            self.cross.object = value
            self.cross.loading = False
        elif part == "eps":
            self.eps.object = value
            self.eps.loading = False
        elif part.startswith("strip:"):
            self.strips[part[6:]].object = value
        elif part == "error":
            self.messages.object = value
            for pane in (self.plot, self.cross, self.eps):
                pane.loading = False

    def servable(self) -> Any:
        return self.layout


def make_figure(model: Explorer, crossovers: Sequence[tuple[str, Any]] = ()) -> Any:
    """Bokeh figure: every bound against the axis, invalid stretches shaded, the current point marked."""
    from bokeh.models import ColumnDataSource, HoverTool
    from bokeh.models.annotations import BoxAnnotation, Label, Span
    from bokeh.plotting import figure

    cv = model.curves()
    c = model.control[cv.axis]
    x_log = bool(c.log and cv.x.size and cv.x.min() > 0)
    title = f"bounds against {cv.axis}; others fixed at the current point"
    for k, msg in cv.errors.items():
        title += f" | {short(k)}: {msg}"[:200]
    fig = figure(height=400, sizing_mode="stretch_width", y_axis_type="log",
                 x_axis_type="log" if x_log else "linear",
                 x_axis_label=f"{cv.axis} ({c.meaning})", y_axis_label="bound (float64 curves)",
                 title=title,
                 tools="pan,wheel_zoom,box_zoom,reset,save")
    cur = float(Decimal(model.values[cv.axis])) if cv.axis in model.values else None
    for i, t in enumerate(model.theorems):
        col = COLORS[i % len(COLORS)]
        if t.key not in cv.y:
            continue
        y = cv.y[t.key]
        src = ColumnDataSource({"x": cv.x, "y": np.where(np.isfinite(y) & (y > 0), y, np.nan)})
        fig.line("x", "y", source=src, color=col, line_width=2.2, legend_label=short(t.key))
    spans = cv.invalid_spans()
    step = (np.diff(cv.x).min() / 2) if cv.x.size > 1 else 0.0
    for lo, hi, keys in spans:
        fig.add_layout(BoxAnnotation(left=lo - (0 if x_log else step), right=hi + (0 if x_log else step),
                                     fill_color="#d62728", fill_alpha=0.12, line_alpha=0))
        fig.add_layout(Label(x=lo, y=8, x_units="data", y_units="screen", text_font_size="10px",
                             text_color="#b71c1c", text=f"conditions fail: {', '.join(short(k) for k in keys)}"))
    if cur is not None:
        fig.add_layout(Span(location=cur, dimension="height", line_color="#333", line_dash="dashed", line_width=1))
    shown = 0
    for key, r in crossovers:
        if isinstance(r, str) or r.value is None or r.always_below:
            continue
        shown += 1
        fig.add_layout(Span(location=float(r.value), dimension="height", line_color="#555", line_dash="dotted",
                            line_width=2))
        fig.add_layout(Label(x=float(r.value), y=10 + 14 * shown, y_units="screen", text_font_size="10px",
                             text=f" crossover {short(key)}: {cv.axis} = {r.value}"))
    fig.add_tools(HoverTool(tooltips=[(cv.axis, "@x"), ("value", "@y{0.000000e+0}")]))
    if fig.legend:
        fig.legend.location = "bottom_right"
        fig.legend.click_policy = "hide"
        fig.legend.label_text_font_size = "11px"
    return fig


def _insert(opts: list[str], v: str) -> list[str]:
    from dptheory.core.notation import parse_value

    out = [*opts, v]
    out.sort(key=lambda s: parse_value(s, key="explore", name="value"))
    return out


def integer_positions(start: int, end: int, most: int = 2000) -> list[str]:
    if end - start + 1 <= most:
        return [str(i) for i in range(start, end + 1)]
    return [str(int(np.rint(x))) for x in np.linspace(start, end, most)]


def _fmt_num(x: float) -> str:
    return f"{x:g}"


# ----------------------------------------------------------------------------- entry points
def build_app(keys: Sequence[str] = (), values: dict[str, Any] | None = None) -> Any:
    """A Panel layout for the explorer (a new model per call: one per browser session)."""
    import panel as pn

    pn.extension(notifications=False)
    return ExplorerView(Explorer(keys, values)).servable()


def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((address, 0))
        return int(s.getsockname()[1])


def serve(keys: Sequence[str] = (), *, port: int = 0, show: bool = False, address: str = "127.0.0.1",
          values: dict[str, Any] | None = None) -> None:
    """Serve the page and block (Ctrl-C stops). Prints ``dptheory explore: serving <url>`` first."""
    import panel as pn

    Explorer(keys, values)  # fail before binding a port when a key or value is bad
    if port == 0:
        port = free_port(address)
    origins = [f"{address}:{port}"] + ([f"localhost:{port}"] if address in ("127.0.0.1", "localhost") else [])
    server = pn.serve({"/": lambda: build_app(keys, values)}, port=port, address=address,
                      websocket_origin=origins, show=False, start=False, title="dptheory explorer",
                      verbose=False)
    url = f"http://{address}:{server.port}/"
    print(f"dptheory explore: serving {url} (Ctrl-C to stop)", flush=True)
    if show:
        import webbrowser

        server.io_loop.add_callback(lambda: webbrowser.open(url))
    try:
        server.start()
        server.io_loop.start()
    except KeyboardInterrupt:
        print("dptheory explore: stopped", file=sys.stderr)
    finally:
        server.stop()
