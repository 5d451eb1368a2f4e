-- A close of the owners' statements copies a line per owner entry of the
-- month, and each key of owner_statement_lines is checked once a line.
-- Its own key to companies checks nothing the key to its statement does
-- not: company_id is the first column of (company_id, statement_id), which
-- names a statement of that company, and a statement's company is one of
-- companies (owner_statements' own key), which cannot be deleted or
-- renumbered while a statement of it is there. docs/storage.md, "Schema
-- rules"; docs/performance.md, "Owner statements".
ALTER TABLE owner_statement_lines DROP CONSTRAINT owner_statement_lines_company_id_fkey;
