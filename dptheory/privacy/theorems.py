"""Registration of the generic mechanisms' RDP statements (``rdp.*`` keys), found by the registry's discovery."""

from dptheory.privacy import rdp  # noqa: F401  (registers rdp.gaussian, rdp.subsampled_gaussian)
