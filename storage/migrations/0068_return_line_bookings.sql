-- The lines of a bank return file's content that booked money
-- (docs/ledger.md, "Settlement from a bank return file"): a settlement, a
-- part, a tariff, money booked nowhere and alerted (a line of an invoice
-- paid already). The same bytes may be read by more than one job (stored
-- once per account named: read again naming an account, to settle the
-- lines a first reading found ambiguous), and a line books once whatever
-- reading reads it: the key is the content's SHA-256 and the line (as a
-- tariff's return_key), claimed by the reading that books it, job_id that
-- reading's job (no foreign key: jobs are pruned). Rows are never
-- deleted but by the reading that claimed them, in its transaction, for a
-- line that booked nothing in the end.
CREATE TABLE return_line_bookings (
    company_id bigint NOT NULL REFERENCES companies (id),
    key        text NOT NULL,
    job_id     bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, key)
);

-- The tariffs booked before this table, by lines of their own or of an
-- invoice paid already: their lines booked, by a reading not known.
-- (The payments booked before it left no key: a reading of the same bytes
-- for another account is guarded by the invoice's state alone for those.)
INSERT INTO return_line_bookings (company_id, key)
SELECT company_id, return_key FROM transactions WHERE return_key LIKE 'return:%'
ON CONFLICT DO NOTHING;
