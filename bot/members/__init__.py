"""Members as individuals: their personal digest settings and privacy (`users`) and the onboarding
conversation that sets up their interests (`onboarding`).
May import: models, errors, config, core, store, ranking, digests, text, questions.authors, topictree (a weekly
digest's topic tree).
"""
