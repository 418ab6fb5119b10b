"""Registration of the generic mechanisms' RDP statements (``rdp.*`` keys), found by the registry's discovery."""

from dptheory.privacy import rdp, rdp_wor  # noqa: F401  (rdp.gaussian, rdp.subsampled_gaussian, rdp.sampled_wor_gaussian)
