"""Citations: a paper (authors, year, arXiv id and version) and an item inside it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, kw_only=True)
class Paper:
    """A source paper.

    Attributes:
        key: short stable name used in theorem keys (``yeshokri22``).
        authors: author list as printed.
        year: publication year.
        title: paper title.
        venue: where it appeared.
        arxiv_id: arXiv identifier.
        arxiv_version: arXiv version the items were read from (``None`` if unknown).
    """

    key: str
    authors: str
    year: int
    title: str
    venue: str = ""
    arxiv_id: str = ""
    arxiv_version: int | None = None

    def item(self, locator: str, *, eq: str | int | None = None, note: str = "") -> Citation:
        """A citation of one item (theorem, lemma, equation) of this paper."""
        return Citation(paper=self, locator=locator, equation=None if eq is None else str(eq), note=note)

    def short(self) -> str:
        """``Mironov 2017``, ``Ye & Shokri 2022``, ``Mironov et al. 2019``."""
        names = [a.strip() for a in self.authors.replace(" and ", ",").split(",") if a.strip()]
        surnames = [a.split()[-1] for a in names] or ["?"]
        if len(surnames) == 1:
            who = surnames[0]
        elif len(surnames) == 2:
            who = f"{surnames[0]} & {surnames[1]}"
        else:
            who = f"{surnames[0]} et al."
        return f"{who} {self.year}"

    def bibtex(self) -> str:
        fields = [f"  title = {{{self.title}}}", f"  author = {{{self.authors}}}", f"  year = {{{self.year}}}"]
        if self.venue:
            fields.append(f"  booktitle = {{{self.venue}}}")
        if self.arxiv_id:
            fields.append(f"  eprint = {{{self.arxiv_id}}}")
            fields.append("  archivePrefix = {arXiv}")
        return "@inproceedings{" + self.key + ",\n" + ",\n".join(fields) + "\n}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Citation:
    """One item of a paper: ``Ye & Shokri 2022, Theorem 4.2, Eq. (5), arXiv 2203.05363``."""

    paper: Paper
    locator: str
    equation: str | None = None
    note: str = field(default="")

    def short(self) -> str:
        """Short form used in error messages and tables."""
        eq = f", Eq. ({self.equation})" if self.equation else ""
        arx = ""
        if self.paper.arxiv_id:
            v = f"v{self.paper.arxiv_version}" if self.paper.arxiv_version else ""
            arx = f", arXiv {self.paper.arxiv_id}{v}"
        return f"{self.paper.short()}, {self.locator}{eq}{arx}"

    def __str__(self) -> str:
        return self.short()
