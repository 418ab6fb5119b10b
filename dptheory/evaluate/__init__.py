"""The evaluation engines: sweeps, crossovers of two bounds, scale-out of independent tasks.

Sweeps over a parameter grid (:mod:`dptheory.evaluate.sweep`), crossovers of two
bounds in RDP or (epsilon, delta) (:mod:`dptheory.evaluate.crossover`) and scale-out of independent tasks on
Dask (:mod:`dptheory.evaluate.parallel`).

They sit above the model (``dptheory.core``) and the privacy layer (``dptheory.privacy``) and below the
command line, the report and the explorer. Importing this package is light: the engines load sympy, numpy
and Dask when they are imported.
"""
