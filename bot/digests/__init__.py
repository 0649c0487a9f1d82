"""Digests: building a day's or week's digest for a target (recommend -> score -> summarise), when a member's
digest is due, and delivering it exactly once through a front end's `Poster`.

Modules: `build` (the digest of a profile), `due` (when a personal or weekly digest is due), `delivery` (the posting
ledger and the `Poster` protocol), `sent_journal` (the write-ahead note of accepted messages).
May import: models, errors, config, core, store, ranking, text, llm, the leaf module ingest.announce (the calendar);
topictree only inside a function (a weekly channel digest's tree: bot.topictree.digest loads scikit-learn and SciPy,
which every command importing the digests would otherwise pay for at start-up, tests/test_startup.py). Never a front
end.
"""
