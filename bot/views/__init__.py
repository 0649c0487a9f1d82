"""What a paper, a digest and a card look like before any platform styles them: the structured views (`model`),
their Markdown, plain-text and JSON renderings (`render`), and `/paper` and `/why` (`cards`).
May import: models, errors, core, digests, text.
"""
