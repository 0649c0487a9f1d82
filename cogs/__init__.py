"""discord.py cogs of the Discord front end, one per feature; thin: read the platform's input and hand it to the
core's driver (`bot.frontends.discord.app.PaperscoutBot`), which answers.

Loaded by `bot.frontends.discord.app.PaperscoutBot.setup_hook`.
"""
