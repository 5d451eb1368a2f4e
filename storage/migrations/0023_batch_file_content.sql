-- Remittance files stored compressed by the job that writes them
-- (docs/storage.md, "Remittance files"; docs/performance.md, "Batch files:
-- the file job profiled and made faster"): the writer's records are
-- gzipped as they come, so that the file is never held whole, and
-- PostgreSQL stores about a tenth of it without compressing it again.
-- content_encoding says how content holds the file: gzip, or identity for
-- the files stored before (TOAST compressed those itself); size is the
-- file's own length, in bytes.
ALTER TABLE batch_files
    ADD COLUMN content_encoding text NOT NULL DEFAULT 'identity'
        CONSTRAINT batch_files_content_encoding_check CHECK (content_encoding IN ('identity', 'gzip')),
    ADD COLUMN size bigint;
UPDATE batch_files SET size = octet_length(content);
ALTER TABLE batch_files ALTER COLUMN size SET NOT NULL;
-- gzip leaves nothing for TOAST to compress: store it out of line as it is
ALTER TABLE batch_files ALTER COLUMN content SET STORAGE EXTERNAL;

-- Each collection file reads the account's titles reverted and not yet
-- asked to drop, to ask for them (docs/jobs.md, batch:file). Without this
-- index that read every title the account ever sent (100,000: a 14 ms
-- sequential scan per file, growing with the account's history); with
-- it, the reverted ones only (the payments have theirs since 0020).
CREATE INDEX ticket_batch_invoices_reverted ON ticket_batch_invoices (company_id, account_id, our_number)
    WHERE state = 'reverted';
