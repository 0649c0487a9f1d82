"""Hostile and careless inputs: every one is refused with one line (exit 1) or accepted clean, never a traceback,
and nothing stored changes on an error. A seeded generator mutates real records so the run is reproducible."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bot.cli import main
from bot.errors import InputError
from bot.ingest.jsonl import read_jsonl
from bot.models import split_arxiv_id
from tests.test_cli import home, one_error_line, small_day  # noqa: F401 - the fixture is used by name

GOOD = {
    "id": "2505.00001",
    "title": "Sparse routing",
    "authors": ["Ada Lovelace"],
    "abstract": "We route tokens.",
    "categories": ["cs.LG"],
    "announced": "2025-05-26",
}

# (field, value) pairs reported by the issue 17 probe, plus their neighbours.
HOSTILE_FIELDS: list[tuple[str, object]] = [
    ("id", "2505.\u0967\u0968\u0969\u096a\u096b"),  # Devanagari digits
    ("id", "\uff12\uff15\uff10\uff15.00001"),  # full-width digits
    ("id", 2505.1764),  # a JSON number
    ("id", "2505.00001v" + "9" * 20),  # a version above 2**63
    ("id", "2505.00001v0"),
    ("id", None),
    ("id", ["2505.00001"]),
    ("announced", "9999-12-31"),
    ("announced", "1900-01-01"),
    ("announced", 20250526),
    ("announced", (dt.date.today() + dt.timedelta(days=3)).isoformat()),
    ("title", "\x00\x01\x1b[2J\u202e\u200b"),  # only controls: nothing visible is left
    ("title", 5),
    ("abstract", ["x"]),
    ("authors", "Ada"),
    ("authors", [1, 2]),
    ("categories", []),
    ("categories", ["[click](https://evil.example/x)"]),  # Markdown shown raw on Discord before
    ("categories", ["@everyone"]),
    ("comment", {"a": 1}),
    ("announce_type", ["new"]),
]


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    return path


@pytest.mark.parametrize(("field", "value"), HOSTILE_FIELDS)
def test_each_bad_field_is_one_input_error(tmp_path: Path, field: str, value: object) -> None:
    record = {**GOOD, field: value}
    with pytest.raises(InputError, match=r"hostile.jsonl:1: "):
        read_jsonl([write(tmp_path, [json.dumps(record)])])


@pytest.mark.parametrize(
    "line",
    [
        '{"id": "2505.00001", "title": "T", "version": ' + "1" * 5000 + "}",
        '{"id": ' + "1" * 5000 + "}",
        "[" * 100_000 + "]" * 100_000,
        '{"id": "2505.00001", "title": "\\ud800"}',
    ],
)
def test_json_that_breaks_the_parser_is_one_input_error(tmp_path: Path, line: str) -> None:
    with pytest.raises(InputError, match=r"hostile.jsonl:1: "):
        read_jsonl([write(tmp_path, [line])])


def test_a_lone_surrogate_in_text_is_removed_not_stored() -> None:
    from bot.ingest.jsonl import paper_from_record

    paper = paper_from_record({**GOOD, "title": "Sparse \ud800routing"}, "x")
    assert paper.title == "Sparse routing"
    paper.title.encode("utf-8")


def test_categories_not_shaped_like_arxiv_ones_are_dropped_for_every_source() -> None:
    from bot.ingest.jsonl import paper_from_record
    from bot.ingest.limits import clean_paper

    hostile = ["cs.LG", "[click](https://evil.example/x)", "@everyone", "<@&1>", "I.2.7", "cs.LG", "hep-th"]
    assert paper_from_record({**GOOD, "categories": hostile}, "x").categories == ("cs.LG", "hep-th")
    # store_papers cleans what RSS and the API bring with the same rule
    paper = paper_from_record(GOOD, "x")
    assert clean_paper(replace(paper, categories=tuple(hostile))).categories == ("cs.LG", "hep-th")


def test_ids_are_ascii_only_and_versions_bounded() -> None:
    assert split_arxiv_id("2505.00001v12") == ("2505.00001", 12)
    for raw in ("2505.\u0967\u0968\u0969\u096a\u096b", "\uff12505.00001", "2505.00001v99999"):
        with pytest.raises(ValueError):
            split_arxiv_id(raw)


def _mutations(rng: random.Random) -> str:
    """One random hostile JSONL line: a real record with a field replaced, or random bytes of JSON-ish text."""
    choices: list[object] = [
        None, True, -1, 2**64, 1e308, "", " ", "\x00", "\u202e", "@everyone", "<@&1>", "[x](javascript:1)",
        "x" * 20_000, [], {}, [[[]]], "2505.00001", "9999-12-31", "0000-00-00", "\ud800",
    ]  # fmt: skip
    if rng.random() < 0.2:
        alphabet = '{}[]":,0123456789.-eE tnrufals\\u\x00\u202e'
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80)))
    record: dict[str, object] = dict(GOOD)
    for _ in range(rng.randint(1, 3)):
        key = rng.choice([*GOOD, "comment", "announce_type", "extra"])
        record[key] = rng.choice(choices)
    return json.dumps(record)


FUZZ_LINES = 400


def test_random_hostile_lines_are_accepted_clean_or_refused_with_input_error(tmp_path: Path) -> None:
    rng = random.Random(17)
    accepted = refused = 0
    for _ in range(FUZZ_LINES):
        path = write(tmp_path, [_mutations(rng)])
        try:
            papers = read_jsonl([path])
        except InputError as exc:
            assert "\n" not in str(exc)
            refused += 1
            continue
        accepted += 1
        for paper in papers:
            assert paper.title and paper.abstract
            assert dt.date(1991, 8, 14) <= paper.announced <= dt.date.today() + dt.timedelta(days=1)
            assert paper.id.isascii()
            json.dumps(paper.title, ensure_ascii=False).encode("utf-8")
    assert refused > 0 and accepted + refused == FUZZ_LINES


def _archive_digest(home_dir: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(home_dir.rglob("*")):
        if path.is_file() and path.suffix != ".lock" and path.name != "writer.lock":
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_cli_turns_every_bad_input_into_one_line_and_changes_nothing(
    home: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ingest", "--jsonl", str(small_day(tmp_path, 5))]) == 0
    capsys.readouterr()
    before = _archive_digest(home)
    rng = random.Random(17)
    bad_files = [write(tmp_path / f"f{i}", [_mutations(rng)]) for i in range(3) if (tmp_path / f"f{i}").mkdir() is None]
    directory = tmp_path / "a-directory"
    directory.mkdir()
    surrogate = tmp_path / "surrogate.jsonl"
    surrogate.write_text(json.dumps({**GOOD, "id": "2505.00002v" + "9" * 30}) + "\n", encoding="utf-8")
    commands = [
        ["ingest", "--jsonl", str(surrogate)],
        ["ingest", "--jsonl", str(directory)],
        ["digest", "--profile", str(directory)],
        ["digest", "--size", "-5"],
        ["usage", "--days", "1000000000"],
        ["search", "x", "--limit", "0"],
        *(["ingest", "--jsonl", str(path)] for path in bad_files),
    ]
    for argv in commands:
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse refuses a bad argument with exit 2 and a usage line
            code = exc.code
        err = capsys.readouterr().err
        assert "Traceback" not in err, (argv, err)
        if code == 1:
            one_error_line(err)
        else:
            assert code in (0, 2), (argv, code, err)
            if code == 2:
                assert err.strip().splitlines()[-1].startswith("paperscout "), err
        assert _archive_digest(home) == before, argv


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[[topics]]\n" * 3,
        "".join(f'[[topics]]\nwant = "topic {i}"\n' for i in range(60)),
        'title = "\\ud800"',
        "a = " + "[" * 5000 + "]" * 5000,
        "[[topics]]\nwant = 5\n",
        '[[topics]]\nwant = "' + "x" * 5000 + '"\n',
        "\x00\x01\x02",
    ],
)
def test_hostile_profile_files_are_one_profile_error(tmp_path: Path, text: str) -> None:
    from bot.errors import PaperscoutError
    from bot.ranking.profiles import load_profile

    path = tmp_path / "p.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PaperscoutError) as caught:
        load_profile(path)
    assert "\n" not in str(caught.value).strip()
    with pytest.raises(PaperscoutError, match="is a directory"):
        load_profile(tmp_path)


def test_db_reports_papers_without_vectors_instead_of_hiding_it(
    home: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import asyncio

    from bot.config import load_settings
    from bot.core import open_core

    assert main(["ingest", "--jsonl", str(small_day(tmp_path, 3))]) == 0
    assert main(["db"]) == 0
    assert "mismatch" not in capsys.readouterr().out

    async def lose_one_vector() -> None:
        async with open_core(load_settings()) as core:
            [paper_id, *_] = [p.id for p in await core.repo.papers_on((await core.repo.announcement_days())[0])]
            await core.vectors.delete([paper_id])

    asyncio.run(lose_one_vector())
    assert main(["db"]) == 1
    out = capsys.readouterr().out
    assert "mismatch:        3 papers but 2 vectors: 1 papers without a vector (first: " in out
    assert "run paperscout db --repair" in out
    assert main(["db", "--repair"]) == 0
    assert "repaired: 0 vectors deleted, 1 papers embedded again" in capsys.readouterr().out
    assert main(["db"]) == 0
    assert "mismatch" not in capsys.readouterr().out


def test_a_one_line_error_carries_no_url_credentials_controls_or_line_breaks() -> None:
    from bot.cli import one_line_error

    line = one_line_error(ValueError("cannot reach https://bob:hunter22@llm.example/v1?key=sk-123\n\x1b[2J@here"))
    assert "hunter22" not in line and "sk-123" not in line and "\n" not in line and "\x1b" not in line
    assert line.startswith("cannot reach https://")


ENDLESS_READ = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # a regression fails here with MemoryError, not the machine
from bot.ingest.jsonl import read_jsonl
from bot.ranking.profiles import load_profile
read = read_jsonl if sys.argv[1] == "jsonl" else load_profile
try:
    read([sys.argv[2]] if sys.argv[1] == "jsonl" else sys.argv[2])
except Exception as exc:
    print(type(exc).__name__, exc)
"""


@pytest.mark.parametrize(("kind", "error"), [("jsonl", "InputError"), ("profile", "ProfileError")])
def test_an_endless_file_is_refused_within_a_bound_whatever_its_size_says(kind: str, error: str) -> None:
    """/dev/zero says it is empty and never ends: it is read up to a bound and refused in one line."""
    done = subprocess.run(
        [sys.executable, "-c", ENDLESS_READ, kind, "/dev/zero"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.stdout.startswith(f"{error} /dev/zero"), (done.stdout, done.stderr[-2000:])


def test_a_line_separator_inside_a_json_string_is_text_not_a_line_break(tmp_path: Path) -> None:
    """JSON allows a raw U+2028 or U+2029 in a string; only a line feed ends a JSONL line."""
    line = json.dumps({**GOOD, "title": "Sparse\u2028routing\u2029at scale"}, ensure_ascii=False)
    [paper] = read_jsonl([write(tmp_path, [line])])
    assert paper.title.startswith("Sparse") and paper.title.endswith("at scale")
