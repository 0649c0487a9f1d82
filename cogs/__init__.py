"""discord.py cogs of the Discord front end, one per feature; thin: parse input, call the chat controller, render.

Loaded by `bot.frontends.discord.app.PaperscoutBot.setup_hook`.
"""
