-- The version of the price indices (docs/finance.md, "Storing a
-- readjustment"): one row, a random value replaced by every write of
-- price_indices in the writing statement (storage.UpsertIndices, the
-- shipped series, the import), so that a reader keeping the series it read
-- (storage.LoadIndices, at every company's readjustment) learns from one
-- row whether they changed. Random rather than counted: a rolled-back
-- write's value is never given again, and databases cloned from one
-- another share a version only while they share the series. Belongs to
-- no company, like price_indices.
CREATE TABLE price_indices_version (
    one        boolean PRIMARY KEY DEFAULT true CHECK (one),
    version    uuid NOT NULL DEFAULT gen_random_uuid(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO price_indices_version DEFAULT VALUES;
