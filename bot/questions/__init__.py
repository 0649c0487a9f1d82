"""Questions and search over the stored papers: reading a question (time words, authors, topics, typos), the
optional LLM parse, retrieval (dense + BM25 with topic evidence), the relevance cut-off and the cited answer.
May import: models, errors, config, core, store, ranking, text, llm.
"""
