"""Trained models: Algorithm 1 (noisy mini-batch GD) and Algorithm 2 (DP-SGD, regularized logistic regression).

Ye & Shokri 2022 (arXiv 2203.05363), Algorithms 1 and 2. Vectorised over independent runs, with an
explicit ``numpy.random.Generator``; results are dataclasses. See ``docs/trained_models.md``.
"""

from dptheory.core.units import BatchScheme
from dptheory.train.data import (
    Dataset,
    MissingOptionalDependency,
    clip_features,
    load_breast_cancer,
    load_dataset,
    load_digits,
    quadratic_neighbours,
    synthetic_classification,
)
from dptheory.train.logistic import Canary, ClippedLogisticLoss, accuracy, add_bias, logistic_noise_std, train_dp_sgd
from dptheory.train.noisy_gd import (
    FunctionLoss,
    Loss,
    QuadraticLoss,
    Replacement,
    TrainResult,
    batches_per_epoch,
    train_noisy_gd,
)

__all__ = [
    "BatchScheme", "Canary", "ClippedLogisticLoss", "Dataset", "FunctionLoss", "Loss", "MissingOptionalDependency",
    "QuadraticLoss", "Replacement", "TrainResult", "accuracy", "add_bias", "batches_per_epoch", "clip_features",
    "load_breast_cancer", "load_dataset", "load_digits", "logistic_noise_std", "quadratic_neighbours",
    "synthetic_classification", "train_dp_sgd", "train_noisy_gd",
]
