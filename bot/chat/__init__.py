"""The conversation core every chat front end drives: `ChatController`, the messages it takes and gives, the base a
front end derives from, and the answer to a command or a press it answers through.

See `bot.chat.messages` for the data a front end hands in and renders, `bot.chat.controller` for the flows,
`bot.chat.driver` for the base a front end derives from (it sends the replies with the core's policy, routes what is
heard, every command and every press), `bot.chat.digest_threads` for its base, the digest poster (a digest's messages
and its thread), `bot.chat.refusals` for what a platform's refusal means to that policy, and
`bot.chat.answering` for the answer to one command or press it answers through (`Interaction`: acknowledged, then
its pages, then finished, a page only the member may see never shown to everyone; `Posts` where the platform has none
of its own; who may see what of an answer).
"""

from bot.chat.controller import ChatController, typed
from bot.chat.messages import (
    Action,
    AnswerReply,
    Attachment,
    Choice,
    DigestReply,
    DigestView,
    FileReply,
    Incoming,
    PaperView,
    Place,
    Reply,
    Speaker,
    TextReply,
    Upload,
    is_paperscout_button,
    is_question_choice,
    layout,
)

__all__ = [
    "Action",
    "AnswerReply",
    "Attachment",
    "ChatController",
    "Choice",
    "DigestReply",
    "DigestView",
    "FileReply",
    "Incoming",
    "PaperView",
    "Place",
    "Reply",
    "Speaker",
    "TextReply",
    "Upload",
    "is_paperscout_button",
    "is_question_choice",
    "layout",
    "typed",
]
