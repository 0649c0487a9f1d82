"""The arXiv category taxonomy, and validation of what a person types as a category.

The list is arXiv's category taxonomy (https://arxiv.org/category_taxonomy) as of 2025: archives with
subject classes (``cs.LG``) and archives that are a category on their own (``hep-th``, ``quant-ph``).
It changes rarely; when arXiv adds a category, add a line here.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

CATEGORIES: dict[str, str] = {
    # Computer Science
    "cs.AI": "Artificial Intelligence",
    "cs.AR": "Hardware Architecture",
    "cs.CC": "Computational Complexity",
    "cs.CE": "Computational Engineering, Finance, and Science",
    "cs.CG": "Computational Geometry",
    "cs.CL": "Computation and Language",
    "cs.CR": "Cryptography and Security",
    "cs.CV": "Computer Vision and Pattern Recognition",
    "cs.CY": "Computers and Society",
    "cs.DB": "Databases",
    "cs.DC": "Distributed, Parallel, and Cluster Computing",
    "cs.DL": "Digital Libraries",
    "cs.DM": "Discrete Mathematics",
    "cs.DS": "Data Structures and Algorithms",
    "cs.ET": "Emerging Technologies",
    "cs.FL": "Formal Languages and Automata Theory",
    "cs.GL": "General Literature",
    "cs.GR": "Graphics",
    "cs.GT": "Computer Science and Game Theory",
    "cs.HC": "Human-Computer Interaction",
    "cs.IR": "Information Retrieval",
    "cs.IT": "Information Theory",
    "cs.LG": "Machine Learning",
    "cs.LO": "Logic in Computer Science",
    "cs.MA": "Multiagent Systems",
    "cs.MM": "Multimedia",
    "cs.MS": "Mathematical Software",
    "cs.NA": "Numerical Analysis",
    "cs.NE": "Neural and Evolutionary Computing",
    "cs.NI": "Networking and Internet Architecture",
    "cs.OH": "Other Computer Science",
    "cs.OS": "Operating Systems",
    "cs.PF": "Performance",
    "cs.PL": "Programming Languages",
    "cs.RO": "Robotics",
    "cs.SC": "Symbolic Computation",
    "cs.SD": "Sound",
    "cs.SE": "Software Engineering",
    "cs.SI": "Social and Information Networks",
    "cs.SY": "Systems and Control",
    # Economics
    "econ.EM": "Econometrics",
    "econ.GN": "General Economics",
    "econ.TH": "Theoretical Economics",
    # Electrical Engineering and Systems Science
    "eess.AS": "Audio and Speech Processing",
    "eess.IV": "Image and Video Processing",
    "eess.SP": "Signal Processing",
    "eess.SY": "Systems and Control",
    # Mathematics
    "math.AC": "Commutative Algebra",
    "math.AG": "Algebraic Geometry",
    "math.AP": "Analysis of PDEs",
    "math.AT": "Algebraic Topology",
    "math.CA": "Classical Analysis and ODEs",
    "math.CO": "Combinatorics",
    "math.CT": "Category Theory",
    "math.CV": "Complex Variables",
    "math.DG": "Differential Geometry",
    "math.DS": "Dynamical Systems",
    "math.FA": "Functional Analysis",
    "math.GM": "General Mathematics",
    "math.GN": "General Topology",
    "math.GR": "Group Theory",
    "math.GT": "Geometric Topology",
    "math.HO": "History and Overview",
    "math.IT": "Information Theory",
    "math.KT": "K-Theory and Homology",
    "math.LO": "Logic",
    "math.MG": "Metric Geometry",
    "math.MP": "Mathematical Physics",
    "math.NA": "Numerical Analysis",
    "math.NT": "Number Theory",
    "math.OA": "Operator Algebras",
    "math.OC": "Optimization and Control",
    "math.PR": "Probability",
    "math.QA": "Quantum Algebra",
    "math.RA": "Rings and Algebras",
    "math.RT": "Representation Theory",
    "math.SG": "Symplectic Geometry",
    "math.SP": "Spectral Theory",
    "math.ST": "Statistics Theory",
    # Astrophysics
    "astro-ph.CO": "Cosmology and Nongalactic Astrophysics",
    "astro-ph.EP": "Earth and Planetary Astrophysics",
    "astro-ph.GA": "Astrophysics of Galaxies",
    "astro-ph.HE": "High Energy Astrophysical Phenomena",
    "astro-ph.IM": "Instrumentation and Methods for Astrophysics",
    "astro-ph.SR": "Solar and Stellar Astrophysics",
    # Condensed Matter
    "cond-mat.dis-nn": "Disordered Systems and Neural Networks",
    "cond-mat.mes-hall": "Mesoscale and Nanoscale Physics",
    "cond-mat.mtrl-sci": "Materials Science",
    "cond-mat.other": "Other Condensed Matter",
    "cond-mat.quant-gas": "Quantum Gases",
    "cond-mat.soft": "Soft Condensed Matter",
    "cond-mat.stat-mech": "Statistical Mechanics",
    "cond-mat.str-el": "Strongly Correlated Electrons",
    "cond-mat.supr-con": "Superconductivity",
    # Physics archives that are categories on their own
    "gr-qc": "General Relativity and Quantum Cosmology",
    "hep-ex": "High Energy Physics - Experiment",
    "hep-lat": "High Energy Physics - Lattice",
    "hep-ph": "High Energy Physics - Phenomenology",
    "hep-th": "High Energy Physics - Theory",
    "math-ph": "Mathematical Physics",
    "nucl-ex": "Nuclear Experiment",
    "nucl-th": "Nuclear Theory",
    "quant-ph": "Quantum Physics",
    # Nonlinear Sciences
    "nlin.AO": "Adaptation and Self-Organizing Systems",
    "nlin.CD": "Chaotic Dynamics",
    "nlin.CG": "Cellular Automata and Lattice Gases",
    "nlin.PS": "Pattern Formation and Solitons",
    "nlin.SI": "Exactly Solvable and Integrable Systems",
    # Physics
    "physics.acc-ph": "Accelerator Physics",
    "physics.ao-ph": "Atmospheric and Oceanic Physics",
    "physics.app-ph": "Applied Physics",
    "physics.atm-clus": "Atomic and Molecular Clusters",
    "physics.atom-ph": "Atomic Physics",
    "physics.bio-ph": "Biological Physics",
    "physics.chem-ph": "Chemical Physics",
    "physics.class-ph": "Classical Physics",
    "physics.comp-ph": "Computational Physics",
    "physics.data-an": "Data Analysis, Statistics and Probability",
    "physics.ed-ph": "Physics Education",
    "physics.flu-dyn": "Fluid Dynamics",
    "physics.gen-ph": "General Physics",
    "physics.geo-ph": "Geophysics",
    "physics.hist-ph": "History and Philosophy of Physics",
    "physics.ins-det": "Instrumentation and Detectors",
    "physics.med-ph": "Medical Physics",
    "physics.optics": "Optics",
    "physics.plasm-ph": "Plasma Physics",
    "physics.pop-ph": "Popular Physics",
    "physics.soc-ph": "Physics and Society",
    "physics.space-ph": "Space Physics",
    # Quantitative Biology
    "q-bio.BM": "Biomolecules",
    "q-bio.CB": "Cell Behavior",
    "q-bio.GN": "Genomics",
    "q-bio.MN": "Molecular Networks",
    "q-bio.NC": "Neurons and Cognition",
    "q-bio.OT": "Other Quantitative Biology",
    "q-bio.PE": "Populations and Evolution",
    "q-bio.QM": "Quantitative Methods",
    "q-bio.SC": "Subcellular Processes",
    "q-bio.TO": "Tissues and Organs",
    # Quantitative Finance
    "q-fin.CP": "Computational Finance",
    "q-fin.EC": "Economics",
    "q-fin.GN": "General Finance",
    "q-fin.MF": "Mathematical Finance",
    "q-fin.PM": "Portfolio Management",
    "q-fin.PR": "Pricing of Securities",
    "q-fin.RM": "Risk Management",
    "q-fin.ST": "Statistical Finance",
    "q-fin.TR": "Trading and Market Microstructure",
    # Statistics
    "stat.AP": "Applications",
    "stat.CO": "Computation",
    "stat.ME": "Methodology",
    "stat.ML": "Machine Learning",
    "stat.OT": "Other Statistics",
    "stat.TH": "Statistics Theory",
}

ARCHIVES: dict[str, str] = {
    "cs": "Computer Science",
    "econ": "Economics",
    "eess": "Electrical Engineering and Systems Science",
    "math": "Mathematics",
    "astro-ph": "Astrophysics",
    "cond-mat": "Condensed Matter",
    "nlin": "Nonlinear Sciences",
    "physics": "Physics",
    "q-bio": "Quantitative Biology",
    "q-fin": "Quantitative Finance",
    "stat": "Statistics",
}

MAX_CATEGORY_INPUT = 60  # longer than any code or name; anything longer is not one category

_BY_LOWER = {code.lower(): code for code in CATEGORIES}
_NAME_WORD = re.compile(r"[a-z]+")
MAX_ARCHIVE_SUGGESTIONS = 24  # buttons: Discord shows 25 per message, one is "skip"


@dataclass(frozen=True, slots=True)
class CategoryCheck:
    """The outcome of checking one typed category: the canonical code, or suggestions and a reason."""

    text: str
    code: str | None
    suggestions: tuple[str, ...] = ()
    reason: str = ""

    @property
    def ok(self) -> bool:
        """True when `text` named a known category."""
        return self.code is not None


class UnknownCategory(ValueError):
    """A typed category that is not in arXiv's taxonomy; `suggestions` holds likely meant codes."""

    def __init__(self, message: str, suggestions: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.suggestions = suggestions


def category_name(code: str) -> str:
    """The short English name of a category code ('' when unknown)."""
    return CATEGORIES.get(code, "")


def describe(code: str) -> str:
    """'cs.LG (Machine Learning)'."""
    name = category_name(code)
    return f"{code} ({name})" if name else code


def _by_name(text: str) -> list[str]:
    # "machine learning" -> every category whose name contains all the typed words
    words = _NAME_WORD.findall(text.lower())
    if not words:
        return []
    return [code for code, name in CATEGORIES.items() if all(w in _NAME_WORD.findall(name.lower()) for w in words)]


def _initials(name: str) -> str:
    return "".join(w[0] for w in _NAME_WORD.findall(name.lower()) if w not in {"and", "of", "in"})


def archive_members(archive: str) -> tuple[str, ...]:
    """The categories of an archive ('q-bio' -> q-bio.BM, q-bio.CB, ...); a category-less archive names itself."""
    lowered = archive.lower()
    members = tuple(c for c in CATEGORIES if c.lower().startswith(lowered + "."))
    return members or tuple(c for c in CATEGORIES if c.lower() == lowered)


def _archives_by_words(text: str) -> list[str]:
    # "quant-bio" -> q-bio (Quantitative Biology): every typed word begins a word of the archive's name
    words = _NAME_WORD.findall(text.lower())
    if not words or any(len(w) < 3 for w in words):
        return []
    return [
        archive
        for archive, name in ARCHIVES.items()
        if all(any(part.startswith(w) for part in _NAME_WORD.findall(name.lower())) for w in words)
    ]


def _suggest(text: str) -> tuple[str, ...]:
    lowered = text.lower()
    found: list[str] = []
    for archive in _archives_by_words(lowered.partition(".")[0]):
        found += archive_members(archive)[:4]
    archive, _, subject = lowered.partition(".")
    if subject:
        # The same subject class in another archive ("cs.ML" -> stat.ML) is the commonest slip.
        found += [code for code in CATEGORIES if code.lower().partition(".")[2] == subject]
        # A subject class whose name has the typed initials ("cs.ML" -> cs.LG, "Machine Learning").
        found += [c for c in CATEGORIES if c.lower().startswith(archive + ".") and _initials(CATEGORIES[c]) == subject]
    else:
        # A bare subject class ("lg", "cv") names the same class in whichever archive has it.
        found += [code for code in CATEGORIES if code.lower().partition(".")[2] == lowered]
    found += [_BY_LOWER[c] for c in difflib.get_close_matches(lowered, list(_BY_LOWER), n=3, cutoff=0.75)]
    found += _by_name(text)[:4]
    unique: list[str] = []
    for code in found:
        if code not in unique:
            unique.append(code)
    return tuple(unique[:4])


def check_category(text: str) -> CategoryCheck:
    """Check one typed category (any case, or a category's name); never raises."""
    cleaned = text.strip().strip(",;").strip()
    if not cleaned:
        return CategoryCheck(text, None, reason="empty")
    if len(cleaned) > MAX_CATEGORY_INPUT:
        return CategoryCheck(cleaned[:MAX_CATEGORY_INPUT] + "…", None, reason="too long to be a category")
    exact = _BY_LOWER.get(cleaned.lower())
    if exact:
        return CategoryCheck(cleaned, exact)
    if cleaned.lower() in ARCHIVES:
        members = archive_members(cleaned)
        return CategoryCheck(
            cleaned,
            None,
            suggestions=members[:MAX_ARCHIVE_SUGGESTIONS],
            reason=f"a whole archive ({ARCHIVES[cleaned.lower()]}); pick among its {len(members)} categories: "
            + ", ".join(members),
        )
    named = _by_name(cleaned)
    if len(named) == 1:
        return CategoryCheck(cleaned, named[0])
    return CategoryCheck(cleaned, None, suggestions=_suggest(cleaned), reason="not an arXiv category")


def validate_category(text: str) -> str:
    """The canonical code for a typed category ("cs.lg" -> "cs.LG"); raises `UnknownCategory` with suggestions."""
    check = check_category(text)
    if check.code is not None:
        return check.code
    hint = f"; did you mean {' or '.join(check.suggestions)}?" if check.suggestions else ""
    raise UnknownCategory(f"{check.text!r}: {check.reason}{hint}", check.suggestions)
