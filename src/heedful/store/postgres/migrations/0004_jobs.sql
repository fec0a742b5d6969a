-- The job queue: claimed with a lease (SELECT ... FOR UPDATE SKIP LOCKED), kept after completion.
CREATE TABLE jobs (
    seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
CREATE INDEX jobs_user_kind ON jobs (user_id, kind, state);
