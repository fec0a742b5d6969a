-- The one sanctioned rewrite of append-only rows: masking secrets stored before redaction covered
-- them. Each purge is recorded here: which table, row and column were rewritten (never the secret).
CREATE TABLE secret_purges (
    seq        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    at         TEXT NOT NULL,
    rewritten  TEXT NOT NULL,
    row_count  INTEGER NOT NULL
);
