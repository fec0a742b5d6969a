-- Keyword statistics kept per user: a user's BM25 scores, and the cost of finding their matches,
-- depend only on their own rows. Terms are SQLite's porter/unicode61 tokens (as FTS5 makes them).
CREATE TABLE fact_terms (
    user_id    TEXT NOT NULL,
    term       TEXT NOT NULL,
    fact_rowid INTEGER NOT NULL,
    tf         INTEGER NOT NULL,
    dl         INTEGER NOT NULL,
    PRIMARY KEY (user_id, term, fact_rowid)
) WITHOUT ROWID;

-- Per user: how many recallable rows are indexed and how many tokens they hold (for avgdl).
CREATE TABLE user_term_totals (
    user_id TEXT PRIMARY KEY,
    docs    INTEGER NOT NULL,
    tokens  INTEGER NOT NULL
);

-- The store-wide full-text index is replaced by the per-user terms (filled from the facts at open).
DROP TRIGGER facts_fts_insert;
DROP TABLE facts_fts;
