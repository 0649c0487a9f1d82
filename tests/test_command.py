"""The front-end contract for a command: one route in the core's driver (`ChatDriver.command`), which a front end
calls with who ran it, where, the command and its fields, and its answer to it (an `Interaction`), as a button press
goes through `press` (tests/test_press.py). Driven here by the smallest front end there can be (`Wall`: a chat is a
list of texts), once with an answer of its own that can show a page to the member alone, and once with `Posts` (a
platform whose commands have no answer of their own, like a typed command)."""

from __future__ import annotations

from bot.chat import Incoming, Place, Speaker, Upload
from bot.chat.answering import Posts
from bot.chat.commands import COMMANDS
from bot.chat.driver import SENT_TO_DM
from bot.core import Core
from bot.members.privacy import export_user
from bot.members.settings import profile_owner
from bot.models import Profile, Topic
from tests.conftest import StoreDay
from tests.test_press import CHANNEL, DM, PRESSER, Ephemeral, Wall

ADMIN = Speaker("wall:9", "Cleo", is_admin=True)
WELCOME = "set up your personal paper feed"
ITSELF = Speaker("wall:papers", "#papers", is_admin=True)  # the channel speaking as itself: no member behind it
NOBODY = "I can't tell who wrote that, so I have no one to send a direct message to: run /{command} again as yourself"


def run(speaker: Speaker, place: Place, line: str) -> Incoming:
    """`line` typed or run by `speaker` at `place`."""
    return Incoming.from_text(speaker, place, line)


async def test_a_dm_only_command_run_in_a_shared_place_is_answered_in_the_members_dm(core: Core) -> None:
    """/start (and its alias /interests) works only in a DM: run in a channel it is answered in the member's DM and
    the place is told, for the member alone where the platform can; nothing of it is posted in the place. The place
    speaking as itself (a channel's own post, an anonymous admin) has no DM: it is told that nobody can be written
    to, and where the command works."""
    wall = Wall(core)
    own = Ephemeral()
    await wall.command(run(PRESSER, CHANNEL, "/start"), own)
    assert own.pages == [(SENT_TO_DM, True)] and not wall.walls["papers"]
    assert WELCOME in wall.walls["7"][0]

    posts = Posts(wall, CHANNEL, quote="m1")  # no page of its own: the note is said in the place
    await wall.command(run(Speaker("wall:8", "Ann"), CHANNEL, "/interests"), posts)
    assert wall.walls["papers"] == [SENT_TO_DM] and WELCOME in wall.walls["8"][0]

    itself = Ephemeral()
    await wall.command(run(Speaker("wall:papers", "#papers"), CHANNEL, "/start"), itself)
    [(line, private)] = itself.pages
    assert line.startswith("I can't tell who wrote that, so I have no one to send a direct message to: run /start")
    assert private and len(wall.walls["papers"]) == 1


async def test_a_reply_is_the_members_alone_where_asked_and_the_places_otherwise(
    core: Core, store_day: StoreDay
) -> None:
    """A command run `private` is acknowledged and answered for the member alone; a public one's answer is the
    place's, while what the controller marks as the member's alone (/help) stays theirs; in a DM nothing is private
    (only the member sees it anyway); `Posts` sends the private pages through its `privately` and quotes `quote`."""
    await store_day(core)
    wall = Wall(core)
    private = Ephemeral()
    await wall.command(run(PRESSER, CHANNEL, "/search graph"), private, private=True)
    assert private.acknowledged[0] is True and private.pages and all(p for _, p in private.pages)

    public = Ephemeral()
    await wall.command(run(PRESSER, CHANNEL, "/search graph"), public)
    assert public.acknowledged[0] is False and public.pages and not any(p for _, p in public.pages)
    helped = Ephemeral()
    await wall.command(run(PRESSER, CHANNEL, "/help"), helped)
    assert [p for _, p in helped.pages] == [True]

    in_dm = Ephemeral()
    await wall.command(run(PRESSER, DM, "/help"), in_dm, private=True)
    assert in_dm.acknowledged[0] is False and not any(p for _, p in in_dm.pages)

    alone: list[object] = []

    async def privately(message: object) -> bool:
        alone.append(message)
        return True

    await wall.command(run(PRESSER, CHANNEL, "/help"), Posts(wall, CHANNEL, privately=privately, quote="m2"))
    assert len(alone) == 1 and str(alone[0]).startswith("What I can do") and not wall.walls["papers"]


async def test_a_refused_command_and_a_failure_are_one_line_for_the_member(core: Core) -> None:
    """An admin's command run by a member is refused in the platform's words of who may (the speaker's `is_admin`,
    which the platform decides), and an admin's begins; a failure on the way (a file too big to read, a DM the
    platform cannot post to) is one line for the member, never a traceback, and nothing is posted in the place."""
    wall = Wall(core)
    refused = Ephemeral()
    await wall.command(run(PRESSER, CHANNEL, "/setup"), refused)
    [(line, private)] = refused.pages
    assert line.startswith("/setup is for ") and private
    begun = Ephemeral()
    await wall.command(run(ADMIN, CHANNEL, "/setup"), begun)
    assert begun.pages and "categories" in begun.pages[0][0]

    async def download() -> bytes:
        raise AssertionError("a file over the bound is never downloaded")

    too_big = Ephemeral()
    await wall.command(run(ADMIN, CHANNEL, "/setup"), too_big, upload=Upload("lab.toml", 10**9, download))
    [(line, private)] = too_big.pages
    assert private and "\n" not in line and "Traceback" not in line

    wall.broken = "7"  # the member's DM fails as a library's bug would: a line with a reference
    failed = Ephemeral()
    await wall.command(run(PRESSER, CHANNEL, "/start"), failed)
    [(line, private)] = failed.pages
    assert private and "ref " in line and "\n" not in line
    assert not wall.walls["papers"]


async def test_a_members_own_command_run_by_the_place_itself_acts_for_nobody(core: Core, store_day: StoreDay) -> None:
    """Every command that acts on the member who runs it (the command table's `personal` ones), run by the place
    speaking as itself (a channel's own post, an admin writing as the group: a speaker keyed by the place), is
    answered in one line that nobody can be acted for, and no stand-in member keyed by the place is made, read or
    changed: what an older version stored for one (a reaction, a profile) is neither shown nor deleted, /forget offers
    no buttons a member could press, and nothing is posted in the place. Everything else still works for the place,
    and /help lists only that."""
    papers = await store_day(core)
    paper = papers[0].id
    run_as_member = {  # each with an argument that would act at once
        "start": "",
        "up": paper,
        "down": paper,
        "why": paper,
        "reactions": "reset yes",
        "profile": "",
        "edit": "interests",
        "mydigest": "daily 08:00 UTC",
        "export": "",
        "forget": "yes",
    }
    assert {name for name, command in COMMANDS.items() if command.personal} == set(run_as_member)
    await core.repo.add_feedback(ITSELF.user_key, paper, 1)  # left by a version that acted for a stand-in
    await core.repo.save_profile(profile_owner(ITSELF.user_key), Profile("stand-in", (Topic("graphs", "graphs"),)))
    stored = await export_user(core, ITSELF.user_key)
    wall = Wall(core)
    for name, args in run_as_member.items():
        answered = Ephemeral()
        await wall.command(run(ITSELF, CHANNEL, f"/{name} {args}".strip()), answered)
        [(line, private)] = answered.pages
        assert line.startswith(NOBODY.format(command=name)) and private, name
        typed = Posts(wall, CHANNEL, quote="m1")  # typed in the place, as a channel post is
        await wall.command(run(ITSELF, CHANNEL, f"/{name} {args}".strip()), typed)
        assert wall.walls["papers"].pop().startswith(NOBODY.format(command=name)), name
    assert await export_user(core, ITSELF.user_key) == stored
    assert not wall.walls["papers"] and list(wall.walls) == ["papers"]

    helped = Ephemeral()
    await wall.command(run(ITSELF, CHANNEL, "/help"), helped)
    [(listed, _)] = helped.pages
    offered = {line.split()[0] for line in listed.splitlines() if line.startswith("  /")}
    assert "/search" in offered and not offered & {f"/{name}" for name in run_as_member}
    searched = Ephemeral()
    await wall.command(run(ITSELF, CHANNEL, "/search graph"), searched)
    assert searched.pages and not searched.pages[0][0].startswith("I can't tell")
    member = Ephemeral()  # a member's own command run by a member in the same place acts for them
    await wall.command(run(PRESSER, CHANNEL, f"/up {paper}"), member)
    assert [(row.paper_id, row.value) for row in await core.repo.user_feedback_rows(PRESSER.user_key)] == [(paper, 1)]
