"""One step engine for every conversation that spans turns: onboarding, a channel's /setup, the /forget
confirmation.

A `Flow` is a conversation with stored state (a kind in the chat_state table) that takes the speaker's next
messages at the place it belongs to: onboarding in the member's DMs, a /setup in its channel, a confirmation where
it was asked. `Flows` routes to them, the same way for all:

- which flow is open for a speaker at a place is one read;
- `/cancel` and `/skip` (and `/back`, and whatever a flow adds) work in every flow, typed as a command or as text
  (a reply in a Discord channel arrives as text);
- one flow per member and place: starting one ends any other open at that place;
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from bot.chat.turns import Turn, text_reply

if TYPE_CHECKING:
    from bot.chat.messages import Place, Reply
    from bot.core import Core


class Flow(ABC):
    """A conversation that spans turns; subclasses say where it is open and how it takes an answer."""

    kind: str  # its kind in the chat_state table
    commands: frozenset[str] = frozenset({"skip", "back"})  # commands the open flow takes, beside /cancel

    @abstractmethod
    def takes(self, place: Place) -> bool:
        """True when this flow, if open, takes plain text said at `place`."""

    def scope(self, place: Place) -> str:
        """The chat_state scope of its state at `place` ('' for a member's own flow)."""
        return ""

    @abstractmethod
    async def is_open(self, core: Core, user: str, place: Place) -> bool:
        """True when the speaker has this flow open at `place` (a stored state that still reads)."""

    @abstractmethod
    async def answer(self, turn: Turn) -> list[Reply]:
        """Take `turn.args` (or the attachment) as the answer to the waiting question."""

    @abstractmethod
    async def command(self, turn: Turn, name: str) -> list[Reply]:
        """Take one of `commands` (`turn.args` is its argument)."""

    @abstractmethod
    async def cancel(self, turn: Turn) -> list[Reply]:
        """End the flow without saving; what to tell the speaker."""

    async def close(self, core: Core, user: str, place: Place) -> None:
        """End the flow silently (another one starts at this place)."""
        await core.repo.save_chat_state(user, self.kind, "", self.scope(place))

    @abstractmethod
    def owns_step(self, step: str) -> bool:
        """True when a choice button of `step` is one of this flow's."""

    @abstractmethod
    async def choose(self, turn: Turn, step: str, number: str) -> list[Reply]:
        """A pressed choice button of `step` (it may belong to an earlier question)."""


class Flows:
    """The engine over every registered flow (see the module docstring)."""

    def __init__(self, *flows: Flow) -> None:
        self.flows = flows
        self.kinds = tuple(flow.kind for flow in flows)

    async def open_at(self, core: Core, user: str, place: Place) -> Flow | None:
        """The flow that takes the speaker's next message at `place`, if any: one read when none is open."""
        stored = await core.repo.open_flows(user, place.key, self.kinds)
        for flow in self.flows:
            if flow.kind in stored and flow.takes(place) and await flow.is_open(core, user, place):
                return flow
        return None

    async def begin(self, core: Core, user: str, place: Place, kind: str) -> None:
        """Before a flow of `kind` starts at `place`: end the other flows open there."""
        stored = await core.repo.open_flows(user, place.key, self.kinds)
        for flow in self.flows:
            if flow.kind != kind and flow.kind in stored and flow.takes(place):
                await flow.close(core, user, place)

    async def command(self, turn: Turn, name: str) -> list[Reply] | None:
        """A flow command (/cancel, /skip, /back, ...) for the flow open here; None when it is not one."""
        flow = await self.open_at(turn.core, turn.user, turn.place)
        if flow is None:
            if name == "cancel":
                return text_reply("Nothing to cancel.", ephemeral=True)
            if name in ("skip", "back"):
                return text_reply(f"Nothing to {name}: no question of mine is waiting for an answer.", ephemeral=True)
            return None
        if name == "cancel":
            return await flow.cancel(turn)
        if name in flow.commands:
            return await flow.command(turn, name)
        return None

    async def answer(self, turn: Turn) -> list[Reply] | None:
        """Plain text for the flow open here; None when no flow takes it (the controller first sends a reply to
        one of our answers in a channel to the question it continues)."""
        flow = await self.open_at(turn.core, turn.user, turn.place)
        return None if flow is None else await flow.answer(turn)

    async def choose(self, turn: Turn, step: str, number: str) -> list[Reply] | None:
        """A choice button for the flow whose step it names; None when no flow owns it."""
        for flow in self.flows:
            if flow.owns_step(step):
                return await flow.choose(turn, step, number)
        return None
