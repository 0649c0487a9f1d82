"""Members as individuals: their key and the digest settings they type (`settings`), their personal digests
(`personal`), their reactions (`reactions`), their data's export and forgetting (`privacy`), and the onboarding
conversation that sets up their interests (`onboarding`).
May import: models, errors, config, core, store, ranking, digests, text, questions.authors, topictree (a weekly
digest's topic tree).
"""
