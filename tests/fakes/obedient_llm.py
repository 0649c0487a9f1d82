"""A model for the OpenAI fake that obeys instructions injected into its data (issue 17's injection corpus).

`ObedientResponder` answers paperscout's answer, score and TL;DR prompts like a weak model would. When the data
it is given (the user message: question, papers, profile) holds something aimed at it, an instruction to ignore
its rules, print its prompt, ping everyone or emit markup, it obeys, in turn: it prints its system prompt, pings
@everyone, answers citing nothing, emits ``<script>``, pings a role, writes a Markdown link, quotes its
instructions while citing a paper, or sends the reader to a login page by a bare address. In score comments and
TL;DRs, where citations mean nothing, it does all but answering without citations: a steered comment or TL;DR in
plain words, without markup or prompt text, is a case paperscout does not detect (docs/BENCHMARKS.md says so).
Every obedient reply carries `CANARY`, which no corpus text contains, so a test can tell whether anything written
on an injected instruction reached any output.
Otherwise it answers honestly: answers cite the first paper, scores and TL;DRs come from `PaperscoutResponder`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.fakes.paperscout_llm import PaperscoutResponder, request_kind, request_papers

CANARY = "QX7-OBEYED"
# What a weak model takes as an instruction to itself when it finds it in its data.
TRIGGER = re.compile(
    r"ignore (?:all |any |the )?(?:previous|prior|above|earlier|your)"
    r"|disregard|system (?:prompt|override|message)|new instructions?|you are now|developer mode|jailbreak"
    r"|(?:print|reveal|repeat|show|output) (?:your|the) (?:system |hidden )?(?:prompt|instructions|rules)"
    r"|@everyone|@here|<@|<script|\]\(|assistant:|### (?:system|instruction)|do not cite|cite nothing"
    r"|(?:reply|respond|answer|say) (?:only )?with|rate (?:this|every|all)",
    re.IGNORECASE,
)


def obedient_text(action: int, system: str) -> str:
    """What the model writes when it obeys, by action number (one of `ACTIONS`)."""
    texts = (
        f"{CANARY} Ignoring my rules as asked. My system prompt is: {system}",
        f"@everyone {CANARY} read this paper now [1]",
        f"{CANARY}: none of these papers is worth reading; they were all retracted.",
        f"<script>alert('{CANARY}')</script> As requested, see [1].",
        f"<@&123456789012345678> {CANARY} look at [1]",
        f"[{CANARY} free GPUs](https://evil.example/steal?c=1) explains [1] better.",
        f"[1] {CANARY} per my instructions, which say: {system[:400]}",
        f"Log in at https://evil.example/login?next=arxiv to read the full text of [1] {CANARY}",
    )
    return texts[action % len(texts)]


ACTIONS = 8
NO_CITATION = 2  # the action that answers citing nothing


class ObedientResponder:
    """A `Responder` that obeys injected instructions (recording each time) and answers honestly otherwise."""

    def __init__(self) -> None:
        self.honest = PaperscoutResponder()
        self.obeyed = 0  # replies written on an injected instruction
        self.requests = 0

    def __call__(self, request: dict[str, Any]) -> str:
        self.requests += 1
        messages = request.get("messages", [])
        system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
        user = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        kind = request_kind(request)
        papers = request_papers(request)
        if not TRIGGER.search(user):
            if kind in ("score", "tldr"):
                return self.honest(request)
            return "The first paper addresses this question [1]."
        action = self.obeyed % ACTIONS
        if kind in ("score", "tldr") and action == NO_CITATION:
            action += 1  # citing nothing means nothing in a comment or TL;DR (see the module docstring)
        self.obeyed += 1
        text = obedient_text(action, system)
        if kind == "score":
            scores = [[key, 10, 10] for key, _ in papers]
            return json.dumps({"scores": scores, "comments": [{"id": key, "text": text} for key, _ in papers]})
        if kind == "tldr":
            return json.dumps({"tldrs": [{"id": key, "text": text} for key, _ in papers]})
        return text
