-- Users, messages, the bitemporal fact record, its entities, its operation log, per-user keyword
-- statistics and the per-user version recall's in-memory index follows. Times are stored as the
-- store's ISO text ('2024-05-08T10:00:00.000000Z'), as in SQLite, so both backends compare alike.
CREATE TABLE IF NOT EXISTS users (
    user_id    TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);

CREATE TABLE messages (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    user_id      TEXT NOT NULL REFERENCES users (user_id),
    session_id   TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    speaker      TEXT,
    text         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    ingested_at  TEXT NOT NULL,
    background   BOOLEAN NOT NULL DEFAULT FALSE,
    extracted_at TEXT
);
CREATE INDEX messages_buffer ON messages (user_id, extracted_at, seq);
CREATE INDEX messages_session ON messages (user_id, session_id, seq);

-- Only valid_to, superseded_by, expired_at and expired_reason ever change after insert.
-- Vectors are zero-padded to 384 dimensions (the bundled embedder's size): an inner product is
-- unchanged by padding, and one fixed size lets one HNSW index serve every user.
CREATE TABLE facts (
    seq                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                 TEXT NOT NULL UNIQUE,
    user_id            TEXT NOT NULL REFERENCES users (user_id),
    kind               TEXT NOT NULL CHECK (kind IN
                         ('fact', 'commitment', 'tombstone', 'summary', 'profile', 'excerpt')),
    statement          TEXT NOT NULL,
    norm_key           TEXT NOT NULL,
    predicate          TEXT,
    entity             TEXT,
    object             TEXT,
    perspective        TEXT NOT NULL CHECK (perspective IN ('user_belief', 'objective', 'assistant_said')),
    confidence         DOUBLE PRECISION NOT NULL,
    source_message_ids TEXT NOT NULL DEFAULT '[]',
    session_id         TEXT,
    event_at           TEXT,
    place              TEXT,
    background         BOOLEAN NOT NULL DEFAULT FALSE,
    related_id         TEXT,
    valid_from         TEXT NOT NULL,
    valid_to           TEXT,
    superseded_by      TEXT,
    ingested_at        TEXT NOT NULL,
    expired_at         TEXT,
    expired_reason     TEXT,
    embedding          vector(384),
    embedding_dim      SMALLINT
);
CREATE INDEX facts_user_rows ON facts (user_id, seq);
CREATE INDEX facts_user_kind ON facts (user_id, kind);
CREATE INDEX facts_user_key ON facts (user_id, norm_key);
CREATE INDEX facts_user_entity ON facts (user_id, entity, predicate);
-- Approximate nearest neighbours for users past the exact-scan size (see search.py).
CREATE INDEX facts_embedding_hnsw ON facts USING hnsw (embedding vector_ip_ops);

-- The record is append-only: statements are never rewritten and rows never deleted. The one
-- sanctioned rewrite, a secret purge (purge.py), disables these guards inside its own transaction.
CREATE FUNCTION facts_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'facts are append-only: rows are never deleted';
    END IF;
    IF NEW.statement IS DISTINCT FROM OLD.statement OR NEW.user_id IS DISTINCT FROM OLD.user_id
       OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.valid_from IS DISTINCT FROM OLD.valid_from
       OR NEW.ingested_at IS DISTINCT FROM OLD.ingested_at THEN
        RAISE EXCEPTION 'facts are append-only: only validity and expiry may change';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER facts_no_rewrite BEFORE UPDATE ON facts FOR EACH ROW EXECUTE FUNCTION facts_append_only();
CREATE TRIGGER facts_no_delete BEFORE DELETE ON facts FOR EACH ROW EXECUTE FUNCTION facts_append_only();

CREATE TABLE fact_entities (
    user_id TEXT NOT NULL,
    fact_id TEXT NOT NULL REFERENCES facts (id),
    entity  TEXT NOT NULL,
    PRIMARY KEY (fact_id, entity)
);
CREATE INDEX fact_entities_lookup ON fact_entities (user_id, entity);

-- Every change to the record, so that history can be read and any change undone.
CREATE TABLE fact_ops (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    user_id    TEXT NOT NULL REFERENCES users (user_id),
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

-- Keyword statistics kept per user: a user's BM25 scores depend only on their own rows. Terms are
-- SQLite's porter/unicode61 tokens (the same tokenizer as the SQLite backend, so scores match).
CREATE TABLE fact_terms (
    user_id  TEXT NOT NULL,
    term     TEXT NOT NULL,
    fact_seq BIGINT NOT NULL,
    tf       INTEGER NOT NULL,
    dl       INTEGER NOT NULL,
    -- tf and dl ride in the index: BM25 over a common term is an index-only scan
    PRIMARY KEY (user_id, term, fact_seq) INCLUDE (tf, dl)
);
CREATE TABLE user_term_totals (
    user_id TEXT PRIMARY KEY,
    docs    BIGINT NOT NULL,
    tokens  BIGINT NOT NULL
);

-- The one sanctioned rewrite of append-only rows, recorded: table, row and columns (never the secret).
CREATE TABLE secret_purges (
    seq       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id        TEXT NOT NULL UNIQUE,
    at        TEXT NOT NULL,
    rewritten TEXT NOT NULL,
    row_count INTEGER NOT NULL
);

-- A per-user version of the fact record: a process's in-memory index of one user is refreshed only
-- when that user's rows change, and only as much as changed.
CREATE TABLE user_fact_versions (
    user_id   TEXT PRIMARY KEY,
    inserted  BIGINT NOT NULL DEFAULT 0,
    updated   BIGINT NOT NULL DEFAULT 0,
    rewritten BIGINT NOT NULL DEFAULT 0
);

CREATE FUNCTION facts_version_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO user_fact_versions (user_id, inserted)
    SELECT user_id, COUNT(*) FROM inserted_rows GROUP BY user_id
    ON CONFLICT (user_id) DO UPDATE SET inserted = user_fact_versions.inserted + excluded.inserted;
    RETURN NULL;
END $$;
CREATE TRIGGER facts_version_insert AFTER INSERT ON facts REFERENCING NEW TABLE AS inserted_rows
    FOR EACH STATEMENT EXECUTE FUNCTION facts_version_insert();

CREATE FUNCTION facts_version_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.statement IS DISTINCT FROM OLD.statement OR NEW.embedding IS DISTINCT FROM OLD.embedding
       OR NEW.place IS DISTINCT FROM OLD.place THEN
        UPDATE user_fact_versions SET rewritten = rewritten + 1 WHERE user_id = NEW.user_id;
    ELSE
        UPDATE user_fact_versions SET updated = updated + 1 WHERE user_id = NEW.user_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER facts_version_update AFTER UPDATE ON facts FOR EACH ROW EXECUTE FUNCTION facts_version_update();

CREATE FUNCTION fact_entities_version_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE user_fact_versions SET rewritten = rewritten + 1 WHERE user_id = OLD.user_id;
    RETURN NULL;
END $$;
CREATE TRIGGER fact_entities_version_delete AFTER DELETE ON fact_entities
    FOR EACH ROW EXECUTE FUNCTION fact_entities_version_delete();
