"""Telegram's HTML parse mode as the Bot API applies it: allowed tags, entities, UTF-16 offsets, errors.

`parse_html` turns a message written with ``parse_mode=HTML`` into the plain text Telegram stores and the
`MessageEntity` dicts it returns, or raises `EntityParseError` with the text the API puts after
"Bad Request: can't parse entities: ". It is the validator of the fake Bot API server and can be used on its own.

Deliberately stricter than Telegram in one place: a ``&`` that does not start ``&lt; &gt; &amp; &quot;`` or a
numeric entity is an error here, where Telegram shows it literally; in paperscout's output it always means a piece
of outside text went out unescaped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Tag -> entity type, after https://core.telegram.org/bots/api#html-style
TAG_ENTITIES = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
LINK_SCHEMES = ("http://", "https://", "tg://", "ton://", "mailto:")

_PLAIN = re.compile(r"[^<&]+")
_ENTITY = re.compile(r"&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,8})|([a-zA-Z][a-zA-Z0-9]{0,31}));")
_TAG_NAME = re.compile(r"[^\s>/]*")
_ATTRIBUTE = re.compile(r"""\s*([a-zA-Z][a-zA-Z0-9_-]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>"']+))?""")


class EntityParseError(ValueError):
    """HTML Telegram refuses; the message is what follows "can't parse entities: " in the API's answer."""


@dataclass
class _Open:
    tag: str
    entity: dict[str, Any]
    start: int  # UTF-16 offset in the plain text


def utf16_length(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram's entity offsets and (here) of its text limits."""
    return len(text.encode("utf-16-le")) // 2


def parse_html(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Plain text and entities (UTF-16 offsets, outermost first) of `source` in Telegram HTML parse mode."""
    pieces: list[str] = []
    position = 0  # UTF-16 units emitted so far
    stack: list[_Open] = []
    entities: list[dict[str, Any]] = []
    index = 0

    def emit(text: str) -> None:
        nonlocal position
        pieces.append(text)
        position += utf16_length(text)

    def offset(at: int) -> int:
        return len(source[:at].encode("utf-8"))

    while index < len(source):
        plain = _PLAIN.match(source, index)
        if plain:
            emit(plain.group())
            index = plain.end()
            continue
        if source[index] == "&":
            char, index = _decode_entity(source, index, offset)
            emit(char)
            continue
        if source.startswith("</", index):
            end = source.find(">", index)
            if end < 0:
                raise EntityParseError(f"Unclosed end tag at byte offset {offset(index)}")
            name = source[index + 2 : end].strip().lower()
            if not stack:
                raise EntityParseError(f"Unexpected end tag at byte offset {offset(index)}")
            top = stack.pop()
            if name != top.tag:
                raise EntityParseError(
                    f'Unmatched end tag at byte offset {offset(index)}, expected "</{top.tag}>", found "</{name}>"'
                )
            if top.entity and position > top.start:
                top.entity.update(offset=top.start, length=position - top.start)
                entities.append(top.entity)
            index = end + 1
            continue
        opened, index = _start_tag(source, index, offset)
        parent = stack[-1] if stack else None
        if opened.tag == "code" and parent is not None and parent.tag == "pre":
            # <pre><code class="language-x"> is one pre entity with a language, not two entities.
            language = opened.entity.pop("language", None)
            if language:
                parent.entity["language"] = language
            opened.entity = {}
        opened.start = position
        stack.append(opened)

    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1].tag}"')
    text = "".join(pieces)
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return _strip(text, entities)


def _decode_entity(source: str, index: int, offset: Any) -> tuple[str, int]:
    match = _ENTITY.match(source, index)
    if match is None:
        raise EntityParseError(
            f"Character '&' at byte offset {offset(index)} does not start an HTML entity; escape it as &amp;"
        )
    decimal, hexadecimal, name = match.groups()
    if name is not None:
        if name not in NAMED_ENTITIES:
            raise EntityParseError(f'Unsupported HTML entity "&{name};" at byte offset {offset(index)}')
        return NAMED_ENTITIES[name], match.end()
    code = int(decimal) if decimal is not None else int(hexadecimal, 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        raise EntityParseError(f"Invalid numeric HTML entity at byte offset {offset(index)}")
    return chr(code), match.end()


def _start_tag(source: str, index: int, offset: Any) -> tuple[_Open, int]:
    at = offset(index)
    name_match = _TAG_NAME.match(source, index + 1)
    assert name_match is not None  # the pattern matches the empty string
    tag = name_match.group().lower()
    if tag not in TAG_ENTITIES:
        raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {at}')
    attributes: dict[str, str] = {}
    cursor = name_match.end()
    while True:
        while cursor < len(source) and source[cursor].isspace():
            cursor += 1
        if cursor >= len(source):
            raise EntityParseError(f"Unclosed start tag at byte offset {at}")
        if source[cursor] == ">":
            cursor += 1
            break
        attribute = _ATTRIBUTE.match(source, cursor)
        if attribute is None or attribute.end() == cursor:
            raise EntityParseError(f'Expected equal sign in declaration of an attribute of the tag "{tag}"')
        raw = attribute.group(2)
        value = ""
        if raw is not None:
            value = raw[1:-1] if raw[:1] in "\"'" else raw
            value = _decode_attribute(value, offset, cursor)
        attributes[attribute.group(1).lower()] = value
        cursor = attribute.end()
    return _Open(tag, _entity_for(tag, attributes, at), 0), cursor


def _decode_attribute(value: str, offset: Any, at: int) -> str:
    out: list[str] = []
    index = 0
    while index < len(value):
        amp = value.find("&", index)
        if amp < 0:
            out.append(value[index:])
            break
        out.append(value[index:amp])
        try:
            char, index = _decode_entity(value, amp, lambda _: offset(at))
        except EntityParseError:
            out.append("&")  # Telegram keeps a bare & inside an attribute value (query strings)
            index = amp + 1
            continue
        out.append(char)
    return "".join(out)


def _entity_for(tag: str, attributes: dict[str, str], at: int) -> dict[str, Any]:
    kind = TAG_ENTITIES[tag]
    if tag == "a":
        href = attributes.get("href")
        if not href:
            raise EntityParseError(f'Tag "a" must have a href attribute at byte offset {at}')
        if not href.lower().startswith(LINK_SCHEMES):
            return {}  # Telegram silently drops links it cannot open
        return {"type": kind, "url": href}
    if tag == "span":
        if attributes.get("class") != "tg-spoiler":
            raise EntityParseError(f'Tag "span" must have class "tg-spoiler" at byte offset {at}')
        return {"type": kind}
    if tag == "tg-emoji":
        emoji_id = attributes.get("emoji-id", "")
        if not emoji_id.isdigit():
            raise EntityParseError(f'Tag "tg-emoji" must have a numeric emoji-id at byte offset {at}')
        return {"type": kind, "custom_emoji_id": emoji_id}
    if tag == "blockquote" and "expandable" in attributes:
        return {"type": "expandable_blockquote"}
    if tag == "code" and attributes.get("class", "").startswith("language-"):
        return {"type": kind, "language": attributes["class"][len("language-") :]}
    return {"type": kind}


def _strip(text: str, entities: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Telegram trims leading and trailing whitespace from a message; entities move and shrink with it."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = utf16_length(text[: len(text) - len(text.lstrip())])
    end = lead + utf16_length(stripped)
    kept: list[dict[str, Any]] = []
    for entity in entities:
        start = max(entity["offset"], lead)
        stop = min(entity["offset"] + entity["length"], end)
        if stop > start:
            kept.append({**entity, "offset": start - lead, "length": stop - start})
    return stripped, kept
