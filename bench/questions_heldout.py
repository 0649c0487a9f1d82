"""Held-out questions (issue 14): written after the question code changed, to check it was not fitted to the set.

Never used while tuning: `bench/qa_phrasings.py --heldout` prints their figures, which are reported apart from
the set of `bench/questions_phrasings.py`. Expected papers as in `bench/qa.py` (title pattern, or authors).
"""

from __future__ import annotations

from qa import Question

HELDOUT = [
    Question("LoRA variants this week", r"\bLoRA|low-rank adapt"),
    Question("anything on GRPO since Tuesday?", r"GRPO|group relative"),
    Question("model merging papers this week", r"model merg|merging"),
    Question("ViTs this week", r"vision transformer|\bViTs?\b"),
    Question("tabluar data this week", r"tabular"),
    Question("multi-agent RL this week", r"multi-agent reinforcement|MARL|multi-agent RL"),
    Question("what's new on knowledge graphs since Wednesday?", r"knowledge graph"),
    Question("gaussian proccesses this week", r"gaussian process"),
    Question("conformal prediction papers this week", r"conformal"),
    Question("world models this week", r"world model"),
    Question("code gen with LLMs this week", r"code generation"),
    Question("long-context LLMs this week", r"long[- ]context"),
    Question("did Wanli Ouyang publish anything this week?", "", (r"^Wanli Ouyang$",)),
    Question("Yinpeng Dong's papers this week", "", (r"^Yinpeng Dong$",)),
]

# Written after two generic fixes the first list showed were needed ("world models" was read as "world";
# "code gen" was not written out), and run once.
HELDOUT_2 = [
    Question("papers about reward models this week", r"reward model"),
    Question("offline RL papers this week", r"offline (rl|reinforcement)"),
    Question("math reasoning in LLMs since Wednesday", r"math"),
    Question("federated lerning this week", r"federated"),
    Question("anything new on time-series forecasting?", r"time[- ]series|forecast"),
    Question("KG completion this week", r"knowledge graph|\bKG"),
    Question("Muhao Chen's new papers", "", (r"^Muhao Chen$",)),
    Question("uncertainty estimation for LLMs this week", r"uncertaint"),
]

HELDOUT_SEARCH = [
    Question("LoRA", r"\bLoRA|low-rank adapt"),
    Question("model merging", r"model merg|merging"),
    Question("conformal prediction", r"conformal"),
    Question("knowledge graph embeddings", r"knowledge graph"),
    Question("world models", r"world model"),
    Question("federated learning", r"federated"),
]
