"""The LLM: one client for any OpenAI-compatible endpoint (`client`), prompt templates from `prompts/` (`prompts`),
checks on what a model wrote (`guard`), tolerant reading of its JSON (`replies`) and token accounting (`usage`).
May import: models, errors, config, store.repos.
"""
