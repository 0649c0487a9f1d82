"""discord.py cogs of the Discord front end, one per feature; thin: each reads the platform's input and hands it to
the core's driver through `bot.frontends.discord.app.PaperscoutBot`, which answers.

Loaded by `PaperscoutBot.setup_hook` (`bot.frontends.discord.app.COGS`).
"""
