-- Remittance files stored compressed by the job that writes them
-- (docs/jobs.md, batch:file; docs/performance.md, "Collection batch of
-- 100,000 invoices"): the writer's records are gzipped as they come, so
-- that the file is never held whole, and PostgreSQL stores about a tenth
-- of it without compressing it again. content_encoding says how content
-- holds the file: gzip, or identity for the files stored before (TOAST
-- compressed those itself); size is the file's own length, in bytes.
ALTER TABLE batch_files
    ADD COLUMN content_encoding text NOT NULL DEFAULT 'identity'
        CONSTRAINT batch_files_content_encoding_check CHECK (content_encoding IN ('identity', 'gzip')),
    ADD COLUMN size bigint;
UPDATE batch_files SET size = octet_length(content);
ALTER TABLE batch_files ALTER COLUMN size SET NOT NULL;
-- gzip leaves nothing for TOAST to compress: store it out of line as it is
ALTER TABLE batch_files ALTER COLUMN content SET STORAGE EXTERNAL;
