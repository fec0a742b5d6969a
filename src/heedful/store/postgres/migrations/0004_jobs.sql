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
-- Claims scan only the open jobs, oldest first: finished ones pile up but are never read there.
CREATE INDEX jobs_open ON jobs (seq) WHERE state IN ('pending', 'running');
-- Open jobs whose attempts are used up (a worker died on the last one): few, found at once.
CREATE INDEX jobs_spent ON jobs (seq) WHERE state IN ('pending', 'running') AND attempts >= max_attempts;
CREATE INDEX jobs_user_kind ON jobs (user_id, kind, state);
CREATE INDEX jobs_state ON jobs (state, seq);
