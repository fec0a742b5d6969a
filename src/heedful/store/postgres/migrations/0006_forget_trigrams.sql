-- The forget matcher's trigram index: pg_trgm's trigrams of each statement, for the lookup of the
-- rows that hold some of a request's trigrams (see forget_match.py). An index on the trigram array
-- rather than gin_trgm_ops: that operator class rechecks with similarity or word similarity, not
-- with the share of the request's trigrams the forget matcher scores by.
CREATE INDEX facts_statement_trgm ON facts USING gin (show_trgm(statement));
