"""Getting papers in: arXiv's RSS feed and API (rate-limited by `throttle`), JSONL files, the announcement
calendar, the category taxonomy, the bundled demo data, and saving papers with their TL;DRs (`save`) and
vectors (`vectors`).
May import: models, errors, config, core, store, embeddings, text.
"""
