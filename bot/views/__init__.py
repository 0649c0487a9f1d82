"""What a paper, a digest and a card look like before any platform styles them: the structured views (`model`),
their Markdown, plain-text and JSON renderings (`render`), the one chat layout that front ends style and its packer
into messages under a platform's limits (`layout`), `/paper` and `/why` (`cards`), and a topic tree as plain text
(`topic_tree`).
May import: models, errors, core, digests, text, topictree.
"""
