"""The conversation core every chat front end drives: `ChatController` and the messages it takes and gives.

See `bot.chat.messages` for the data a front end hands in and renders, `bot.chat.controller` for the flows, and
`bot.chat.driver` for the base a front end derives from (it sends the replies with the core's policy).
"""

from bot.chat.controller import ChatController
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
    "is_paperscout_button",
    "is_question_choice",
    "layout",
]
