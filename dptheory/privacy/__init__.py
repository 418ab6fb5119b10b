"""General DP machinery shared by many papers: each mechanism with all its backends, RDP statements, conversions.

``sgm``: Poisson-subsampled Gaussian; ``wor``: sampling without replacement; ``gaussian_dp``: the Gaussian
privacy profile; the ``rdp.*`` statements (``rdp``, ``rdp_wor``, registered through ``theorems``)."""
