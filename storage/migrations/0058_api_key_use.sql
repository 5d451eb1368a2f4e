-- What operators see of an API key without its secret (docs/operations.md,
-- "Companies and API keys").
--
-- prefix: the key as issued up to its secret's first 8 hex digits
-- (pf_3_1a2b3c4d), so that a key a caller holds can be told apart in the
-- list; 32 of the secret's 256 bits. Null for the keys issued before it
-- was kept.
-- last_used_at: when an API process last looked the key up for a request
-- (at most once a minute per key is written: a key in use reads a minute
-- or so old, more with PROPFIN_AUTH_CACHE_TTL). Null: never used since it
-- was kept.
ALTER TABLE api_keys
    ADD COLUMN prefix text,
    ADD COLUMN last_used_at timestamptz;
