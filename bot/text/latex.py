"""LaTeX in titles and abstracts made plain Unicode text: `$\\ell_0$` -> 'ℓ₀', `\\textbf{NeuroTrails}` -> 'NeuroTrails'.

arXiv metadata is written by authors in LaTeX. pylatexenc turns macros, accents and math symbols into text; what it
leaves to us: a bare `%` is a percent sign in an abstract, not a comment; a sub- or superscript becomes Unicode where
every character has a Unicode form and `^(...)` otherwise (pylatexenc drops the braces, so `T^{1/3}` would read
'T^1/3'); a macro pylatexenc does not know (an author's own `\\ourmethod`) keeps its name instead of vanishing.
"""

from __future__ import annotations

import functools
import logging
import re

from pylatexenc import latexwalker
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

log = logging.getLogger(__name__)

# Anything that makes a text LaTeX rather than plain prose; text without it is returned as it is.
_MARKUP = re.compile(r"[$\\{}~^_]")
_BARE_SPECIAL = re.compile(r"(?<!\\)([%&#])")  # in an abstract '%', '&' and '#' are meant as written
_APPROX_TILDE = re.compile(r"(?<![\w\\])~(?=\d)")  # "~10x" in an abstract means about, not a LaTeX space
_MATH = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<!\\)\$(.+?)(?<!\\)\$|\\\((.+?)\\\)", re.DOTALL)
_SCRIPT = re.compile(r"([_^])\s*(\{((?:[^{}]|\{[^{}]*\})*)\}|\\[A-Za-z]+|[A-Za-z0-9+\-*])")
_MACRO = re.compile(r"\\([A-Za-z]+)")
# References point into a paper the reader does not have; pylatexenc would write '<cit.>'.
_REFERENCE = re.compile(r"\s*~?\\(?:cite[a-z]*|ref|eqref|autoref|cref|label|footnote|url)\*?(?:\[[^\]]*\])*\{[^{}]*\}")
_HREF = re.compile(r"\\href\s*\{[^{}]*\}\s*\{([^{}]*)\}")  # the link's words; pylatexenc 2.11 fails on some
# Old-style font and size switches pylatexenc does not list; they style the words after them and say nothing.
_SWITCHES = frozenset("em bf it rm sf tt sc sl up md normalfont small footnotesize large Large LARGE huge".split())
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?)\]])")

_SUPERSCRIPT = dict(zip("0123456789+-=()niTt*", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀᵗ*", strict=True))
_SUBSCRIPT = dict(zip("0123456789+-=()aeoxijklmnpstu", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓᵢⱼₖₗₘₙₚₛₜᵤ", strict=True))


# The font and box macros pylatexenc 2.11 parses but has no text for, so it drops their words ("Random Reshuffle
# ($\\textsf{RR}$)" read "Random Reshuffle ()"): their argument is the text, as \\textbf's is.
_TEXT_ARGUMENT = ("textsf", "texttt", "textup", "textmd", "mbox")


@functools.cache
def _converter() -> LatexNodes2Text:
    context = get_default_latex_context_db()
    context.add_context_category(
        "fonts", macros=[MacroTextSpec(name, "%(1)s") for name in _TEXT_ARGUMENT], prepend=True
    )
    return LatexNodes2Text(latex_context=context, math_mode="text", strict_latex_spaces=False)


@functools.cache
def _known_macros() -> frozenset[str]:
    names: set[str] = set()
    for db in (get_default_latex_context_db(), latexwalker.get_default_latex_context_db()):
        names.update(spec.macroname for category in db.categories() for spec in db.iter_macro_specs([category]))
    return frozenset(names)


def _plain(latex: str) -> str:
    try:
        return _converter().latex_to_text(latex)
    except Exception as exc:  # pylatexenc is tolerant; should it still fail, the markup goes and the words stay
        log.debug("LaTeX left as text (%s): %.80s", exc, latex)
        return re.sub(r"\\[A-Za-z]+|[{}$]", "", latex)


def _script(match: re.Match[str]) -> str:
    kind, arg, braced = match.group(1), match.group(2), match.group(3)
    inner = _plain(braced if braced is not None else arg).strip()
    table = _SUPERSCRIPT if kind == "^" else _SUBSCRIPT
    if inner and all(ch in table for ch in inner):
        return "".join(table[ch] for ch in inner)
    if len(inner) == 1 or inner.isalnum():
        return f"{kind}{inner}"
    return f"{kind}({inner})"


def _math(match: re.Match[str]) -> str:
    body = next(group for group in match.groups() if group is not None)
    while True:  # innermost scripts first: x_{i^2}
        replaced = _SCRIPT.sub(_script, body)
        if replaced == body:
            break
        body = replaced
    return "$" + body + "$"


def _unknown_macro(match: re.Match[str]) -> str:
    name = match.group(1)
    return match.group(0) if name in _known_macros() or name in _SWITCHES else name


def latex_to_text(text: str) -> str:
    """`text` with its LaTeX made readable Unicode and its whitespace collapsed; plain text comes back unchanged
    except for the whitespace."""
    if not _MARKUP.search(text):
        return _SPACES.sub(" ", text).strip()
    latex = _APPROX_TILDE.sub("∼", _BARE_SPECIAL.sub(r"\\\1", text))
    latex = _MATH.sub(_math, _HREF.sub(r"\1", _REFERENCE.sub("", latex)))
    latex = _MACRO.sub(_unknown_macro, latex)
    plain = _plain(latex).replace("\xa0", " ")
    plain = _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", plain))
    return plain.strip()
