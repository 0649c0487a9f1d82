"""Front ends: the only modules that import a chat platform's library (discord.py, python-telegram-bot, slack-bolt) and
the console. Each renders the chat controller's replies in its platform's terms and posts digests through a `Poster`.
May import anything in the core; nothing in the core imports them.
"""
