"""Schema migrations, applied in order and tracked by SQLite's `PRAGMA user_version`.

Append new steps; never edit a released one. Each step runs in its own transaction together with the
version bump, so a crash leaves the database at the previous version, never half-migrated.
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: the core tables
    """
    CREATE TABLE papers (
        id               TEXT PRIMARY KEY,          -- version-less arXiv id
        version          INTEGER,
        title            TEXT NOT NULL,
        authors          TEXT NOT NULL,             -- JSON list
        abstract         TEXT NOT NULL,
        categories       TEXT NOT NULL,             -- JSON list, primary first
        primary_category TEXT NOT NULL,
        comment          TEXT NOT NULL DEFAULT '',
        announced        INTEGER NOT NULL,          -- yyyymmdd of the first announcement we saw
        announce_type    TEXT NOT NULL DEFAULT 'new',
        content_hash     TEXT NOT NULL,
        tldr             TEXT,
        tldr_source      TEXT,                      -- 'extractive' or a model name
        created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        updated_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
    );
    CREATE INDEX papers_by_day ON papers(announced);

    CREATE TABLE profiles (
        id          INTEGER PRIMARY KEY,
        owner       TEXT NOT NULL UNIQUE,           -- 'file:NAME', 'discord:CHANNEL', 'user:telegram:ID', ...
        name        TEXT NOT NULL,
        data        TEXT NOT NULL,                  -- JSON of the profile
        fingerprint TEXT NOT NULL,
        updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
    );

    CREATE TABLE targets (
        id          INTEGER PRIMARY KEY,
        platform    TEXT NOT NULL,
        chat_id     TEXT NOT NULL,
        profile_id  INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        categories  TEXT NOT NULL,                  -- JSON list
        post_time   TEXT NOT NULL DEFAULT '09:00',
        timezone    TEXT NOT NULL DEFAULT 'UTC',
        digest_size INTEGER NOT NULL DEFAULT 15,
        enabled     INTEGER NOT NULL DEFAULT 1,
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        UNIQUE (platform, chat_id)
    );

    CREATE TABLE scores (
        paper_id            TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
        profile_fingerprint TEXT NOT NULL,
        model               TEXT NOT NULL,
        relevance           REAL NOT NULL,
        novelty             REAL NOT NULL,
        comment             TEXT NOT NULL DEFAULT '',
        created_at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        PRIMARY KEY (paper_id, profile_fingerprint, model)
    );

    CREATE TABLE ledger (
        target_id  INTEGER NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
        day        INTEGER NOT NULL,                -- yyyymmdd of the announcement day posted
        status     TEXT NOT NULL CHECK (status IN ('claimed', 'sent')),
        detail     TEXT NOT NULL DEFAULT '',
        claimed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        sent_at    TEXT,
        PRIMARY KEY (target_id, day)
    );

    CREATE TABLE ledger_papers (
        target_id INTEGER NOT NULL,
        day       INTEGER NOT NULL,
        paper_id  TEXT NOT NULL,
        position  INTEGER NOT NULL,
        PRIMARY KEY (target_id, day, paper_id),
        FOREIGN KEY (target_id, day) REFERENCES ledger(target_id, day) ON DELETE CASCADE
    );

    -- lexical search over titles, abstracts and authors, kept in step with papers by triggers
    CREATE VIRTUAL TABLE papers_fts USING fts5(
        title, abstract, authors, content='papers', content_rowid='rowid', tokenize='porter unicode61'
    );
    CREATE TRIGGER papers_fts_insert AFTER INSERT ON papers BEGIN
        INSERT INTO papers_fts(rowid, title, abstract, authors)
        VALUES (new.rowid, new.title, new.abstract, new.authors);
    END;
    CREATE TRIGGER papers_fts_delete AFTER DELETE ON papers BEGIN
        INSERT INTO papers_fts(papers_fts, rowid, title, abstract, authors)
        VALUES ('delete', old.rowid, old.title, old.abstract, old.authors);
    END;
    CREATE TRIGGER papers_fts_update AFTER UPDATE OF title, abstract, authors ON papers BEGIN
        INSERT INTO papers_fts(papers_fts, rowid, title, abstract, authors)
        VALUES ('delete', old.rowid, old.title, old.abstract, old.authors);
        INSERT INTO papers_fts(rowid, title, abstract, authors)
        VALUES (new.rowid, new.title, new.abstract, new.authors);
    END;
    """,
    # 2: LLM token and cost accounting, one row per call
    """
    CREATE TABLE llm_usage (
        id                INTEGER PRIMARY KEY,
        at                TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        day               INTEGER NOT NULL,          -- yyyymmdd (UTC) the call was made, for the daily cap
        purpose           TEXT NOT NULL,             -- score | summary | answer | ...
        model             TEXT NOT NULL,
        target            TEXT NOT NULL DEFAULT '',  -- target key or user key the call was made for
        run_id            TEXT NOT NULL DEFAULT '',  -- groups the calls of one digest or question
        prompt_tokens     INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        cost_usd          REAL NOT NULL
    );
    CREATE INDEX llm_usage_by_day ON llm_usage(day);
    CREATE INDEX llm_usage_by_run ON llm_usage(run_id);
    """,
    # 3: members with personal profiles, their digest preferences and their thumbs up/down
    """
    CREATE TABLE users (
        key          TEXT PRIMARY KEY,               -- 'telegram:123', 'discord:456', 'console:local'
        display_name TEXT NOT NULL DEFAULT '',
        digest_mode  TEXT NOT NULL DEFAULT 'off' CHECK (digest_mode IN ('off', 'daily', 'weekly')),
        post_time    TEXT NOT NULL DEFAULT '09:00',
        timezone     TEXT NOT NULL DEFAULT 'UTC',
        weekly_day   INTEGER NOT NULL DEFAULT 0,     -- 0 = Monday, for weekly digests
        conversation TEXT NOT NULL DEFAULT '',       -- JSON of an unfinished onboarding, so it can resume
        created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
    );

    CREATE TABLE feedback (
        user_key TEXT NOT NULL REFERENCES users(key) ON DELETE CASCADE,
        paper_id TEXT NOT NULL,
        value    INTEGER NOT NULL CHECK (value IN (-1, 1)),
        at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        PRIMARY KEY (user_key, paper_id)
    );
    CREATE INDEX feedback_by_user ON feedback(user_key, at);
    """,
    # 4: question-answering conversations, so a follow-up can refer to the previous turn
    """
    CREATE TABLE conversations (
        id         TEXT PRIMARY KEY,                 -- chosen by the adapter: channel/thread or DM id
        state      TEXT NOT NULL,                    -- JSON of the last turn: filters and cited paper ids
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
    );
    """,
    # 5: who asked a conversation's last turn, so /forget and the export find it
    """
    ALTER TABLE conversations ADD COLUMN asker TEXT NOT NULL DEFAULT '';
    CREATE INDEX conversations_by_asker ON conversations(asker);
    CREATE INDEX conversations_by_age ON conversations(updated_at);
    """,
    # 6: the chat controller's state (bot/chat): onboarding moves out of `users` (an unfinished onboarding no
    # longer makes someone a member), plus pending confirmations, half-done /setup, digest numbering, the bot
    # messages a reply can continue, and paused channel targets
    """
    CREATE TABLE chat_state (
        user_key   TEXT NOT NULL,                   -- whose state: 'telegram:123'
        scope      TEXT NOT NULL DEFAULT '',        -- '' for the person, else the place it belongs to
        kind       TEXT NOT NULL,                   -- onboarding | setup | confirm | numbering
        data       TEXT NOT NULL,                   -- JSON
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        PRIMARY KEY (user_key, scope, kind)
    );
    INSERT INTO chat_state (user_key, kind, data)
        SELECT key, 'onboarding', conversation FROM users WHERE conversation != '';
    ALTER TABLE users DROP COLUMN conversation;

    CREATE TABLE bot_messages (
        place      TEXT NOT NULL,                   -- 'platform:chat_id' the message was sent in
        message_id TEXT NOT NULL,                   -- the platform's id of the bot's message
        context_id TEXT NOT NULL,                   -- the question context a reply to it continues
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        PRIMARY KEY (place, message_id)
    );
    CREATE INDEX bot_messages_by_age ON bot_messages(created_at);

    ALTER TABLE targets ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
    """,
    # 7: `paperscout run`: each message of a digest is recorded as it goes out (a restart resumes after the last
    # one), the digest is frozen when claimed (a resumed post sends the same papers), and job runs are kept for
    # `paperscout status`
    """
    ALTER TABLE ledger ADD COLUMN digest TEXT NOT NULL DEFAULT '';  -- JSON of the digest as built when claimed

    CREATE TABLE ledger_messages (
        target_id  INTEGER NOT NULL,
        day        INTEGER NOT NULL,
        seq        INTEGER NOT NULL,                -- 0-based position of the message in the digest
        message_id TEXT NOT NULL,                   -- the platform's id of the sent message
        sent_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        PRIMARY KEY (target_id, day, seq),
        FOREIGN KEY (target_id, day) REFERENCES ledger(target_id, day) ON DELETE CASCADE
    );

    CREATE TABLE job_runs (
        id          INTEGER PRIMARY KEY,
        job         TEXT NOT NULL,                  -- ingest | digests
        started_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        finished_at TEXT,
        outcome     TEXT NOT NULL DEFAULT 'running', -- running | ok | nothing | failed
        detail      TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX job_runs_by_job ON job_runs(job, id);
    """,
    # 8: a target the platform refuses for good (bot removed, chat deleted, user blocked the bot) is inactive with
    # the platform's reason, apart from an admin's /pause; setting the target up again clears it
    """
    ALTER TABLE targets ADD COLUMN inactive TEXT NOT NULL DEFAULT '';  -- '' = active, else why it is not
    """,
    # 9: a channel chooses its digest's schedule in /setup: daily (every announcement day) or weekly (the seven days
    # ending on `weekly_day`, as a topic tree); its ledger rows are then keyed by that weekday's date
    """
    ALTER TABLE targets ADD COLUMN schedule TEXT NOT NULL DEFAULT 'daily' CHECK (schedule IN ('daily', 'weekly'));
    ALTER TABLE targets ADD COLUMN weekly_day INTEGER NOT NULL DEFAULT 0 CHECK (weekly_day BETWEEN 0 AND 6);
    """,
    # 10: each paper's sentence vectors (its title, then each abstract sentence, embedded apart), one row per paper
    # written with it at ingest, so a one-line interest is matched by the sentence that states it
    """
    CREATE TABLE sentence_vectors (
        paper_id  TEXT PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
        made_from TEXT NOT NULL,                    -- Paper.sentence_key: the text's hash and the recipe
        model     TEXT NOT NULL,                    -- the embedder's name
        sentences INTEGER NOT NULL,                 -- rows of the matrix
        vectors   BLOB NOT NULL                     -- float16, sentences x dimension, row-major; row 0 the title
    );
    """,
    # 11: a copy of each paper's vector (the one Chroma stores), written with the sentence vectors, so a question
    # about a window reads the window's vectors from SQLite and a one-shot command need not open Chroma at all
    """
    CREATE TABLE paper_vectors (
        paper_id  TEXT PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
        made_from TEXT NOT NULL,                    -- Paper.vector_key: the text's hash and the recipe
        model     TEXT NOT NULL,                    -- the embedder's name
        vector    BLOB NOT NULL                     -- float32, little-endian, the dimension's length
    );
    """,
    # 12: the words titles and abstracts write, as written (not stemmed: split at anything but a letter, case folded,
    # accents kept), kept in step with papers by triggers: the typo look-up (bot.text.spelling.WrittenWords) reads each
    # word's paper count and whether a title writes it through fts5vocab, one first letter at a time, instead of
    # reading every abstract after each ingest; the papers stored before it are indexed now
    """
    CREATE VIRTUAL TABLE papers_words USING fts5(
        title, abstract, content='papers', content_rowid='rowid',
        tokenize="unicode61 remove_diacritics 0 separators '0123456789'", detail=column
    );
    CREATE TRIGGER papers_words_insert AFTER INSERT ON papers BEGIN
        INSERT INTO papers_words(rowid, title, abstract) VALUES (new.rowid, new.title, new.abstract);
    END;
    CREATE TRIGGER papers_words_delete AFTER DELETE ON papers BEGIN
        INSERT INTO papers_words(papers_words, rowid, title, abstract)
        VALUES ('delete', old.rowid, old.title, old.abstract);
    END;
    CREATE TRIGGER papers_words_update AFTER UPDATE OF title, abstract ON papers BEGIN
        INSERT INTO papers_words(papers_words, rowid, title, abstract)
        VALUES ('delete', old.rowid, old.title, old.abstract);
        INSERT INTO papers_words(rowid, title, abstract) VALUES (new.rowid, new.title, new.abstract);
    END;
    INSERT INTO papers_words(papers_words) VALUES ('rebuild');
    """,
    # 13: a count that every write of a paper's title, abstract or authors raises (triggers), so what is built from
    # them (the typo look-up's words, the index of authors) is rebuilt after any such write, a replacement included;
    # and the words stored titles write, with how many titles write each, kept by `PapersRepo.upsert_papers` in the
    # transaction that writes the titles (`folded` as `text_tokens` reads a title, `written` lower case as written),
    # so the typo look-up reads a table instead of splitting every title after each ingest (filled by
    # `bot.store.repos.papers.fill_title_words` for the papers stored before it)
    """
    CREATE TABLE papers_generation (n INTEGER NOT NULL);
    INSERT INTO papers_generation (n) VALUES (0);
    CREATE TRIGGER papers_generation_insert AFTER INSERT ON papers BEGIN
        UPDATE papers_generation SET n = n + 1;
    END;
    CREATE TRIGGER papers_generation_delete AFTER DELETE ON papers BEGIN
        UPDATE papers_generation SET n = n + 1;
    END;
    CREATE TRIGGER papers_generation_update AFTER UPDATE OF title, abstract, authors ON papers BEGIN
        UPDATE papers_generation SET n = n + 1;
    END;
    CREATE TABLE title_words (
        word          TEXT PRIMARY KEY,
        folded        INTEGER NOT NULL DEFAULT 0,  -- titles whose plural-folded words include it
        written       INTEGER NOT NULL DEFAULT 0,  -- titles writing it as it is (lower case, not folded)
        first_folded  INTEGER,                     -- the first of the former (the smallest rowid), NULL for none
        first_written INTEGER                      -- the first of the latter
    ) WITHOUT ROWID;
    """,
]

LATEST_VERSION = len(MIGRATIONS)
SENTENCE_VECTORS_VERSION = 10  # the schema version that added `sentence_vectors`
VECTOR_COPIES_VERSION = 11  # the schema version that added `paper_vectors`
TITLE_WORDS_VERSION = 13  # the schema version that added `title_words` (filled in Python: `fill_title_words`)
