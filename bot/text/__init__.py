"""Text every part shares: the topic vocabulary (`terms`), typed words corrected against the stored titles
(`spelling`), person names folded for comparison (`names`), the one cleaning of untrusted text and its per-platform
escapes (`safetext`), whether a paper makes a benchmark or a data set (`introduces`), one-line TL;DRs
(`extractive`, and written by an LLM in `tldr`), and how a count is written (`wording`).
May import: models, errors, config, core, llm.
"""
