"""The week as a topic tree: papers grouped into a two-level tree of named topics, one line per paper, as a careful
reader writes notes after a conference ("Diffusion models > Theory").

Modules: `tree` (the data: `TopicTree`, `Topic`, `TopicPaper`, and its JSON form), `words` (the papers' own words:
TF-IDF against a background corpus, candidate heading phrases), `areas` (research areas learnt once from four arXiv
days: a paper's soft place among them, what the top level is cut from), `grouping` (Ward clustering: the top level
on the areas, subtopics on MiniLM vectors joined with the words, the number of topics chosen by silhouette),
`naming` (headings: the most distinctive phrase of a group against the rest, cleanly cased), `build` (papers and
their vectors -> a tree), `papers_file` (the JSON lines `paperscout topics` reads), `llm_names` (with an LLM: better
headings and a one-line note per topic, within a budget).
Offline by default: no model call, nothing stored.
`digest` groups a digest's papers (the weekly digest, the web archive's week pages).
May import: models, errors, config, core, store, embeddings, text, llm, ingest (its limits and bundled day),
views.model (`digest`).
"""
