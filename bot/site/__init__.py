"""The static web archive (`paperscout site build OUT/`): a page per channel per day, a page per week with its
papers as a topic tree (`bot.topictree`), monthly overviews, an index and an in-page search, as plain files with
relative links.

`collect` reads what to show from the store, `html` holds the escaping rule and the page shell, `pages` renders
each page, `build` writes the folder.
"""
