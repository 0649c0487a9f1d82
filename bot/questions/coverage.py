"""Whether the vector store covers the stored papers, said in one line when it does not.

With the vector store missing, damaged or being rebuilt (`paperscout db --repair`), retrieval has only the
full-text index to go on; an answer then says so instead of passing "nothing matches" off as the truth.
"""

from __future__ import annotations

from bot.core import Core


async def vector_gap_note(core: Core) -> str:
    """'' when every stored paper has its vector, else one line saying what is wrong and what the answer rests on."""
    papers = await core.repo.count_papers()
    if not papers:
        return ""
    try:
        vectors = await core.vectors.count()
    except Exception:  # the store cannot even be counted: it is as good as missing
        vectors = 0
    if vectors >= papers:
        return ""
    return (
        f"Note: only {vectors:,} of the {papers:,} stored papers have their vectors (not embedded yet, or the "
        "vector store is missing, damaged or being rebuilt: paperscout db --repair restores it), so these results "
        "come from the full-text index alone."
    )
