-- Store-wide settings, such as the embedding model and dimension the vectors were made with.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
