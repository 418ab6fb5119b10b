"""Build hook for the one optional C kernel (everything else is in pyproject.toml).

dptheory.papers.yeshokri22._thm43 runs the Thm 4.3 recurrence in C (1e8 steps in seconds). It is optional:
if no C compiler is available the pure-Python loop (same algorithm) is used instead.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "dptheory.papers.yeshokri22._thm43",
            sources=["dptheory/papers/yeshokri22/_thm43.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
