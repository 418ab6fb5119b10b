"""Datasets for the trained-model checks: synthetic generators and real datasets shipped inside a package.

Nothing is downloaded at run time. The real datasets are the ones bundled *inside* scikit-learn's
wheel (``load_digits``: 1797 handwritten digits, 8x8 pixels, 64 features, 10 classes;
``load_breast_cancer``: 569 records, 30 features, 2 classes). scikit-learn is an optional extra;
without it the loaders raise :class:`MissingOptionalDependency` saying how to install it.

Preprocessing is *per record and data-independent* (so that replacing one record changes one row
only and no privacy is spent on normalization, i.e. ``epsilon_norm = 0`` in Cor. 5.3): digits are
scaled by the known pixel range (1/16); breast-cancer features (all nonnegative) go through
``log1p``. Feature clipping to ``||x|| <= L`` (Algorithm 2) is applied by the trainer, see
:func:`clip_features`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dptheory.core.errors import DPTheoryError, InvalidParameter, MissingOptionalDependency
from dptheory.core.validate import check_generator, check_int, check_positive

__all__ = [
    "Dataset",
    "MissingOptionalDependency",
    "clip_features",
    "load_breast_cancer",
    "load_dataset",
    "load_digits",
    "quadratic_neighbours",
    "synthetic_classification",
]

KEY = "train.data"


@dataclass(frozen=True)
class Dataset:
    """A dataset of n records.

    Attributes:
        X: features ``(n, d)`` float64.
        y: integer labels ``(n,)`` in ``0..n_classes-1``, or None (unlabelled, e.g. the quadratic loss).
        n_classes: number of classes (0 when unlabelled).
        name: where it comes from.
        preprocessing: what was done to the raw features.
    """

    X: np.ndarray
    y: np.ndarray | None
    n_classes: int
    name: str
    preprocessing: str = ""

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    def subset(self, idx: np.ndarray, name: str | None = None) -> Dataset:
        return Dataset(X=self.X[idx], y=None if self.y is None else self.y[idx], n_classes=self.n_classes,
                       name=name or f"{self.name}[{len(idx)}]", preprocessing=self.preprocessing)


def clip_features(X: np.ndarray, L: float) -> np.ndarray:
    """``x <- x / ||x|| * min(||x||, L)`` row by row (Algorithm 2, feature clipping)."""
    L = check_positive("L", L, key=KEY, citation="Ye & Shokri 2022, Algorithm 2")
    X = np.asarray(X, dtype=np.float64)
    norms = np.linalg.norm(X, axis=-1, keepdims=True)
    scale = np.ones_like(norms)
    np.divide(L, norms, out=scale, where=norms > L)
    return X * scale


def synthetic_classification(
    n: int, d: int, n_classes: int, rng: np.random.Generator, *, separation: float = 2.0, noise: float = 1.0
) -> Dataset:
    """Gaussian class clusters: class means ``separation * u_c`` (u_c random unit vectors), isotropic noise."""
    n = check_int("n", n, key=KEY)
    d = check_int("d", d, key=KEY)
    c = check_int("n_classes", n_classes, low=2, key=KEY)
    rng = check_generator(rng, key=KEY)
    sep = float(separation)
    noise = check_positive("noise", noise, key=KEY)
    centres = rng.standard_normal((c, d))
    centres *= sep / np.linalg.norm(centres, axis=1, keepdims=True)
    y = rng.integers(0, c, size=n)
    X = centres[y] + noise * rng.standard_normal((n, d)) / np.sqrt(d)
    return Dataset(X=X, y=y.astype(np.int64), n_classes=c, name=f"synthetic(n={n}, d={d}, c={c})",
                   preprocessing=f"Gaussian clusters, separation {sep}, noise {noise}")


def quadratic_neighbours(n: int, d: int, diameter: float, *, t: float = 0.0, index: int = 0) -> tuple[Dataset, Dataset]:
    """The neighbouring pair used for the exact divergences of the quadratic loss.

    Records live on the segment from ``x' = 0`` to ``x = diameter * e_1`` (a domain of diameter
    ``diameter``, so ``S_g = lam * diameter``). ``D`` has record ``index`` at ``x`` and every other
    record at ``z = t x``; ``D'`` is ``D`` with record ``index`` moved to ``x'``. With all other
    records equal, the mixture over batch positions is one-dimensional (see
    ``docs/derivations/quadratic_exact_divergence.md``).
    """
    n = check_int("n", n, key=KEY, low=2)
    d = check_int("d", d, key=KEY)
    diam = check_positive("diameter", diameter, key=KEY)
    if not 0.0 <= float(t) <= 1.0:
        raise InvalidParameter(key=KEY, name="t", value=t, reason="the other records must lie on the segment "
                               "[x', x] (0 <= t <= 1) to keep the domain's diameter", citation="")
    index = check_int("index", index, low=0, key=KEY)
    if index >= n:
        raise InvalidParameter(key=KEY, name="index", value=index, reason=f"must be < n = {n}", citation="")
    X = np.zeros((n, d))
    X[:, 0] = t * diam
    X2 = X.copy()
    X[index, 0] = diam
    X2[index, 0] = 0.0
    D = Dataset(X=X, y=None, n_classes=0, name=f"quadratic D (others at t={t})")
    D2 = Dataset(X=X2, y=None, n_classes=0, name=f"quadratic D' (others at t={t})")
    return D, D2


def _sklearn():
    try:
        import sklearn.datasets as skd
    except ImportError as exc:
        raise MissingOptionalDependency(
            "the real datasets are the ones bundled inside scikit-learn (no download); install the extra with "
            "`pip install 'dptheory[datasets]'` (or `pip install scikit-learn`)") from exc
    return skd


def load_digits(*, n: int | None = None, rng: np.random.Generator | None = None) -> Dataset:
    """scikit-learn's bundled digits (1797 x 64, 10 classes), pixels scaled by 1/16 into [0, 1].

    ``n``: keep a uniformly random subset of ``n`` records (needs ``rng``); all records otherwise.
    """
    skd = _sklearn()
    X, y = skd.load_digits(return_X_y=True)
    ds = Dataset(X=np.asarray(X, dtype=np.float64) / 16.0, y=np.asarray(y, dtype=np.int64), n_classes=10,
                 name="digits (scikit-learn bundled)", preprocessing="pixels / 16")
    return _maybe_subset(ds, n, rng)


def load_breast_cancer(*, n: int | None = None, rng: np.random.Generator | None = None) -> Dataset:
    """scikit-learn's bundled Wisconsin breast-cancer data (569 x 30, 2 classes), features ``log1p``-ed."""
    skd = _sklearn()
    X, y = skd.load_breast_cancer(return_X_y=True)
    ds = Dataset(X=np.log1p(np.asarray(X, dtype=np.float64)), y=np.asarray(y, dtype=np.int64), n_classes=2,
                 name="breast-cancer (scikit-learn bundled)", preprocessing="log1p per feature")
    return _maybe_subset(ds, n, rng)


def _maybe_subset(ds: Dataset, n: int | None, rng: np.random.Generator | None) -> Dataset:
    if n is None:
        return ds
    n = check_int("n", n, key=KEY)
    if n > ds.n:
        raise InvalidParameter(key=KEY, name="n", value=n, reason=f"{ds.name} has only {ds.n} records", citation="")
    if rng is None:
        raise DPTheoryError(f"{KEY}: drawing a subset of {ds.name} needs rng (a numpy.random.Generator)")
    idx = np.sort(check_generator(rng, key=KEY).choice(ds.n, size=n, replace=False))
    return ds.subset(idx, name=f"{ds.name}, {n} of {ds.n} records")


DATASETS = ("digits", "breast-cancer", "synthetic")


def load_dataset(name: str, *, n: int | None = None, rng: np.random.Generator | None = None, d: int = 64,
                 n_classes: int = 10) -> Dataset:
    """By name: ``digits``, ``breast-cancer`` (bundled with scikit-learn) or ``synthetic``."""
    if name == "digits":
        return load_digits(n=n, rng=rng)
    if name in ("breast-cancer", "breast_cancer"):
        return load_breast_cancer(n=n, rng=rng)
    if name == "synthetic":
        if rng is None:
            raise DPTheoryError(f"{KEY}: the synthetic dataset needs rng (a numpy.random.Generator)")
        return synthetic_classification(n or 500, d, n_classes, rng)
    raise InvalidParameter(key=KEY, name="dataset", value=name, reason=f"unknown dataset; use one of {DATASETS}",
                           citation="")
