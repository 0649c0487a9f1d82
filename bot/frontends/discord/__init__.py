"""Discord front end: a discord.py `commands.Bot` around the core (`app`), rendering within Discord's limits
(`render`), sending (`send`), posting digests (`poster`) and autocomplete (`choices`). The cogs in `cogs/` hold
the commands.
"""
