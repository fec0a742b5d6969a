-- Users, messages, the bitemporal fact record, its operation log, and the job queue.
CREATE TABLE users (
    user_id    TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);

CREATE TABLE messages (
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    user_id      TEXT NOT NULL REFERENCES users(user_id),
    session_id   TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    speaker      TEXT,
    text         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    ingested_at  TEXT NOT NULL,
    background   INTEGER NOT NULL DEFAULT 0,
    extracted_at TEXT
);
CREATE INDEX messages_buffer ON messages (user_id, extracted_at, seq);
CREATE INDEX messages_session ON messages (user_id, session_id, seq);

-- Only valid_to, superseded_by, expired_at and expired_reason ever change after insert.
CREATE TABLE facts (
    rowid              INTEGER PRIMARY KEY,
    id                 TEXT NOT NULL UNIQUE,
    user_id            TEXT NOT NULL REFERENCES users(user_id),
    kind               TEXT NOT NULL CHECK (kind IN
                         ('fact', 'commitment', 'tombstone', 'summary', 'profile', 'excerpt')),
    statement          TEXT NOT NULL,
    norm_key           TEXT NOT NULL,
    predicate          TEXT,
    entity             TEXT,
    object             TEXT,
    perspective        TEXT NOT NULL CHECK (perspective IN ('user_belief', 'objective', 'assistant_said')),
    confidence         REAL NOT NULL,
    source_message_ids TEXT NOT NULL DEFAULT '[]',
    session_id         TEXT,
    event_at           TEXT,
    place              TEXT,
    background         INTEGER NOT NULL DEFAULT 0,
    related_id         TEXT,
    valid_from         TEXT NOT NULL,
    valid_to           TEXT,
    superseded_by      TEXT,
    ingested_at        TEXT NOT NULL,
    expired_at         TEXT,
    expired_reason     TEXT,
    embedding          BLOB
);
CREATE INDEX facts_user_kind ON facts (user_id, kind);
CREATE INDEX facts_user_key ON facts (user_id, norm_key);
CREATE INDEX facts_user_entity ON facts (user_id, entity, predicate);

CREATE VIRTUAL TABLE facts_fts USING fts5 (
    statement, content = 'facts', content_rowid = 'rowid', tokenize = 'porter unicode61'
);
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts (rowid, statement) VALUES (new.rowid, new.statement);
END;
-- The record is append-only: statements are never rewritten and rows never deleted.
CREATE TRIGGER facts_no_rewrite BEFORE UPDATE OF statement, user_id, kind, valid_from, ingested_at ON facts
BEGIN
    SELECT RAISE(ABORT, 'facts are append-only: only validity and expiry may change');
END;
CREATE TRIGGER facts_no_delete BEFORE DELETE ON facts BEGIN
    SELECT RAISE(ABORT, 'facts are append-only: rows are never deleted');
END;

CREATE TABLE fact_entities (
    user_id TEXT NOT NULL,
    fact_id TEXT NOT NULL REFERENCES facts(id),
    entity  TEXT NOT NULL,
    PRIMARY KEY (fact_id, entity)
);
CREATE INDEX fact_entities_lookup ON fact_entities (user_id, entity);

-- Every change to the record, so that history can be read and any change undone.
CREATE TABLE fact_ops (
    seq        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    user_id    TEXT NOT NULL REFERENCES users(user_id),
    group_id   TEXT NOT NULL,
    op         TEXT NOT NULL,
    fact_id    TEXT NOT NULL,
    before     TEXT NOT NULL,
    after      TEXT NOT NULL,
    reason     TEXT,
    created_at TEXT NOT NULL,
    undone_by  TEXT
);
CREATE INDEX fact_ops_user ON fact_ops (user_id, seq);
CREATE INDEX fact_ops_fact ON fact_ops (user_id, fact_id);

CREATE TABLE jobs (
    seq              INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    user_id          TEXT NOT NULL,
    kind             TEXT NOT NULL,
    payload          TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed')),
    lease_owner      TEXT,
    lease_expires_at TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    max_attempts     INTEGER NOT NULL DEFAULT 3,
    last_error       TEXT,
    result           TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);
CREATE INDEX jobs_claim ON jobs (state, lease_expires_at, seq);
