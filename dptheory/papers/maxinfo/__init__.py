"""Max-information: Dwork et al. 2015 (arXiv 1506.02629), Rogers et al. 2016 (arXiv 1604.03924), and our DP-SGD bounds.

The classic results (``dwork15.*``, ``rogers16.*``) and our derived non-asymptotic bounds for
DP-SGD-stream (``maxinfo.*``: Theorems A and B, Lemma M, the (eps, delta) route; proofs in
``docs/derivations/maxinfo_dpsgd.md``) share one notation table (``theorems``); claims
(``claims``); kernels (``kernels``); certified Monte-Carlo lower bounds on toys (``audit``); the
DP-SGD generalization experiment (``generalization``); figures; ``dptheory maxinfo bounds|audit``.
"""
