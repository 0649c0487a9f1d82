"""TL;DR quality (issue 23): what a reader sees under each paper, over every paper of the shared arXiv days.

Four counts over every paper of the days in `--data` (the stored TL;DR is the extractive one; an LLM's goes through
the same cleaning):
- LaTeX markup: a `$` (not before an amount), a backslash command or a brace (unless the abstract wrote literal
  braces, `\\{`) left in the text;
- a leading connective: the TL;DR opens with a word or phrase that links to a sentence the reader has not seen
  ("However,", "In contrast,", "To address this gap,", "To this end,", "Specifically,");
- ending cut: the TL;DR ends with an ellipsis or without a sentence's closing punctuation;
- leaning on an unseen sentence (not one of the issue's four): a demonstrative whose noun the TL;DR never named
  ("We tackle this problem by ...", "These results ..."), or an opening "It" / "They";
and, on the held-out set `bench/heldout/tldr.jsonl` (200 papers whose abstract sentences were labelled by someone who
never read the code), the share whose TL;DR is one of the paper's `good` sentences (stating the contribution), and
the share that is its `best` one. The TL;DR counts as sentence i when it comes from that sentence: whole, with a
connective dropped, its LaTeX made text, or cut at a clause boundary.

    .venv/bin/python bench/tldr_quality.py [--data ../shared/data] [--heldout bench/heldout/tldr.jsonl] [-v N]
"""

from __future__ import annotations

import argparse
import json
import re
from difflib import SequenceMatcher
from pathlib import Path

from qa import SHARED_DATA

from bot.ingest.jsonl import read_jsonl
from bot.models import Paper
from bot.text.extractive import extractive_tldr
from bot.text.latex import latex_to_text

HELDOUT = Path(__file__).parent / "heldout" / "tldr.jsonl"

LATEX = re.compile(r"\$(?!\d)|\\[A-Za-z]+|\\[^A-Za-z\s]|[{}]")
# A `$` before a number is money ("\\$127" in an abstract); braces the abstract wrote as `\{ \}` are set braces.
LATEX_NO_BRACES = re.compile(r"\$(?!\d)|\\[A-Za-z]+|\\[^A-Za-z\s]")
# Openers that link to an earlier sentence: discourse connectives and short purpose or framing phrases that point
# back ("this gap", "these issues"). Written from how abstracts open sentences, not from the bot's cleaning.
CONNECTIVE = re.compile(
    r"^(however|moreover|furthermore|additionally|in addition|in contrast|by contrast|conversely|instead|"
    r"meanwhile|notably|importantly|specifically|in particular|therefore|thus|hence|consequently|accordingly|"
    r"as a result|finally|first(ly)?|second(ly)?|third(ly)?|then|next|also|still|yet|nevertheless|nonetheless|"
    r"on the other hand|to this end|to that end|to do so|to this aim|for this purpose|in this (paper|work|study|"
    r"article|letter)|here|overall|in summary|in short|in practice|in turn|motivated by th\w+|"
    r"inspired by th\w+|building on th\w+|based on th\w+|given th\w+|with this in mind|against this backdrop|"
    r"(to|in order to) (address|tackle|overcome|solve|fill|bridge|mitigate|remedy|alleviate|close|resolve|handle|"
    r"meet|answer) (this|these|that|those|such|both|the above|this gap|the gap)\b[^,]{0,60}|so)\s*[,:]?\s"
    r"|^[a-z]{4,}ly\s*,\s",  # any sentence adverb set off by a comma: "Subsequently,", "Currently,"
    re.IGNORECASE,
)
# A demonstrative whose noun the TL;DR never named before it ("We tackle this problem by ...", "These results ..."):
# it leans on a sentence the reader has not seen. A document noun ("this paper") and "such as" point nowhere.
DEMONSTRATIVE = re.compile(
    r"\b(this|these|those|such|the above|the aforementioned)\b(?!\s+as\b)((?:\s+[\w-]+){0,3})", re.IGNORECASE
)
DOCUMENT = frozenset("paper work study article letter thesis dissertation chapter note survey review report".split())


def leans_back(text: str) -> bool:
    """Whether a TL;DR points to a sentence the reader has not seen: a demonstrative whose words (up to three) none
    occurs earlier in it, a document noun aside, or an opening pronoun ("It", "They")."""
    if re.match(r"^(it|they|its|their)\b", text, re.IGNORECASE):
        return True
    for match in DEMONSTRATIVE.finditer(text):
        words = [w.lower() for w in match.group(2).split()]
        if words and words[0] in DOCUMENT:
            continue
        before = text[: match.start()].lower()
        if not any(re.search(r"\b" + re.escape(w.rstrip("s")), before) for w in words if len(w) > 2):
            return True
    return False


CUT_END = re.compile(r"(…|\.\.\.)$|[^.!?)\]\"'”’]$")


def shared_papers(data: Path) -> list[Paper]:
    """Every paper of the shared days."""
    return read_jsonl(sorted((data / "arxiv").glob("*.jsonl")))


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def source_sentence(tldr: str, sentences: list[str]) -> int:
    """The labelled sentence the TL;DR came from: the one sharing the longest run of words with it."""
    target = _words(tldr.rstrip("…."))
    best, best_len = -1, 0
    for i, sentence in enumerate(sentences):
        words = _words(latex_to_text(sentence))
        match = SequenceMatcher(None, target, words, autojunk=False).find_longest_match(0, len(target), 0, len(words))
        if match.size > best_len:
            best, best_len = i, match.size
    # a TL;DR mostly made of other words (a merged or rewritten sentence) is from none of them
    return best if target and best_len >= 0.6 * len(target) else -1


def main() -> None:
    """Print the four counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--heldout", type=Path, default=HELDOUT)
    parser.add_argument("-v", "--verbose", type=int, default=0, help="print N examples of each failure")
    args = parser.parse_args()

    papers = shared_papers(args.data)
    tldrs = {p.id: extractive_tldr(p) for p in papers}
    failures: dict[str, list[str]] = {"latex": [], "connective": [], "cut": [], "leaning": [], "not good": []}
    for paper in papers:
        text = tldrs[paper.id]
        literal_braces = "\\{" in paper.abstract or "\\}" in paper.abstract
        if (LATEX_NO_BRACES if literal_braces else LATEX).search(text):
            failures["latex"].append(f"{paper.id}: {text}")
        if CONNECTIVE.search(text):
            failures["connective"].append(f"{paper.id}: {text}")
        if CUT_END.search(text.strip()):
            failures["cut"].append(f"{paper.id}: {text}")
        if leans_back(text):
            failures["leaning"].append(f"{paper.id}: {text}")

    by_id = {p.id: p for p in papers}
    rows = [json.loads(line) for line in args.heldout.read_text().splitlines() if line.strip()]
    good = best = 0
    for row in rows:
        text = tldrs[row["id"]] if row["id"] in tldrs else extractive_tldr(by_id[row["id"]])
        source = source_sentence(text, row["sentences"])
        good += source in row["good"]
        best += source == row["best"]
        if source not in row["good"]:
            failures["not good"].append(f"{row['id']}: [{source}] {text}")

    n = len(papers)
    print(f"TL;DRs of {n} papers ({', '.join(sorted({p.announced.isoformat() for p in papers}))})")
    print(f"  with LaTeX markup:          {len(failures['latex']):4d} ({len(failures['latex']) / n:.1%})")
    print(f"  starting with a connective: {len(failures['connective']):4d} ({len(failures['connective']) / n:.1%})")
    print(f"  ending cut:                 {len(failures['cut']):4d} ({len(failures['cut']) / n:.1%})")
    print(f"  leaning on an unseen one:   {len(failures['leaning']):4d} ({len(failures['leaning']) / n:.1%})")
    print(f"Held-out ({len(rows)} papers, {args.heldout.name}):")
    print(f"  stating the contribution (a good sentence): {good / len(rows):.1%} ({good})")
    print(f"  the best sentence:                          {best / len(rows):.1%} ({best})")
    for name, items in failures.items():
        for line in items[: args.verbose]:
            print(f"[{name}] {line}")


if __name__ == "__main__":
    main()
