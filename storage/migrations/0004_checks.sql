-- Tax ids: the alphanumeric CNPJ (IN RFB 2.229/2024, issued from July 2026)
-- is 12 upper-case letters or digits, then 2 check digits. A CPF stays 11
-- digits. The check digits themselves are verified by the API before any
-- SQL (storage.CheckTaxID, storage.CheckCNPJ); the schema keeps the shape.

ALTER TABLE persons
    DROP CONSTRAINT persons_tax_id_check,
    ADD CONSTRAINT persons_tax_id_check CHECK (tax_id ~ '^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$');

ALTER TABLE businesses
    DROP CONSTRAINT businesses_tax_id_check,
    ADD CONSTRAINT businesses_tax_id_check CHECK (tax_id ~ '^[0-9A-Z]{12}[0-9]{2}$');
