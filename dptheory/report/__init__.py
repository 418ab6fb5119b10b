"""LaTeX bound reports generated from the registry (``dptheory report``)."""

from dptheory.report.build import ReportCompileError, ReportResult, build, compile_tex
from dptheory.report.config import ReportConfig, defaults, load

__all__ = ["ReportCompileError", "ReportConfig", "ReportResult", "build", "compile_tex", "defaults", "load"]
