"""Ranking papers for a profile: the cold-start ranker and how it reads one-line interests (and corrects their typos,
`interest_spelling`), stored papers ranked for a profile (`for_profile`), the learner that uses thumbs up/down, LLM
scoring of the shortlist, nearest papers, TOML profile files, and the offline evaluation with its metrics.
May import: models, errors, config, core, store, text, llm, ingest.
"""
