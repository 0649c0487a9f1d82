"""Typos in a member's one-line interests corrected against the store's words, as a question's are.

"reinforcment learnig" -> "reinforcement learning": the corrector of `bot.text.spelling` (a word no stored paper
uses and no English word is replaced by the closest title word; an abbreviation papers never use is written out;
two words papers write as one are joined), with the ranker's named terms in any spelling ("ssms", "kv"), words
shaped as names ("RetNet", "GPTQ", "Phi3": a method the archive may not hold yet), its function and
framing words and the shorthand marks the reader knows ("incl", "esp") kept as typed. Onboarding
corrects what a member types and says what it read, so the stored interest is the corrected one.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.ranking.interest_units import MARKS, STOP_WORDS
from bot.text import spelling
from bot.text.terms import RANKER, text_tokens

if TYPE_CHECKING:
    from bot.core import Core


def _kept(word: str) -> bool:
    tokens = text_tokens(word)
    return (
        not tokens
        or spelling.name_shaped(word)
        or RANKER.spells(tokens)
        or all(t in STOP_WORDS or t in MARKS for t in tokens)
    )


# Words a member puts in quotes are kept as typed: the way to keep a word the corrector would change, since an
# interest sent again through /edit is corrected again.
_QUOTED = re.compile(r"(\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)|(?<!\w)‘[^’]*’(?!\w))")


def _first_of(text: str) -> Callable[[str], bool]:
    """Whether a word starts a sentence of `text` (an interest starts as one), where its capital says nothing."""
    return lambda word: spelling.starts_sentence(text, word)


async def corrected_interest(core: Core, text: str) -> str:
    """`text` (an interest or an avoid phrase) with its misspelt words corrected against the stored papers, what
    stands in quotes kept as typed. Words are compared as written, as a question's are, so a correction keeps the
    typed inflection ("netwroks" -> "networks", not "network")."""
    pieces = _QUOTED.split(text)
    if len(pieces) == 1:
        return await _corrected(core, text, text)
    out = []
    for k, piece in enumerate(pieces):
        quoted = k % 2 == 1
        out.append(piece if quoted or not piece.strip() else await _corrected_between(core, piece, text))
    return "".join(out)


async def _corrected(core: Core, piece: str, text: str) -> str:
    """`piece` of the interest `text` corrected: words compared as written, as a question's are, so a correction
    keeps the typed inflection; an English word stays as the member typed it ("wether" may be meant), as before."""
    return await spelling.corrected(
        core, piece, _kept, _kept, written=True, real_word_slips=False, starts_sentence=_first_of(text)
    )


async def _corrected_between(core: Core, piece: str, text: str) -> str:
    """A piece between quotes (of the interest `text`) corrected with the spaces around it kept."""
    core_text = piece.strip()
    start = piece.index(core_text)
    read = await _corrected(core, core_text, text)
    return piece[:start] + read + piece[start + len(core_text) :]


@dataclass(frozen=True, slots=True)
class Correction:
    """What was typed and what it was read as, word for word ("imputaton" -> "imputation")."""

    typed: str
    read: str


def corrections(typed: str, read: str) -> list[Correction]:
    """The runs of words that differ between what was typed and its corrected reading, in order."""
    before, after = typed.split(), read.split()
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    return [
        Correction(" ".join(before[i1:i2]), " ".join(after[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


async def corrected_items(core: Core, items: list[str]) -> tuple[list[str], list[Correction]]:
    """Each item corrected (repeats that a correction makes dropped), with the corrections made."""
    out: list[str] = []
    made: list[Correction] = []
    for item in items:
        read = await corrected_interest(core, item)
        made += [c for c in corrections(item, read) if c not in made]
        if read not in out:
            out.append(read)
    return out, made


def read_as(made: list[Correction]) -> str:
    """The sentence telling a member how their words were read, or "" when nothing was corrected."""
    if not made:
        return ""
    pairs = ", ".join(f"'{c.typed}' as '{c.read}'" for c in made)
    return f'I read {pairs} (the words the stored papers use; put a word in "quotes" to keep it as typed).'
