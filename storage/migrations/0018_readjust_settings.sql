-- A company's readjustment settings (docs/finance.md, "Readjustment";
-- docs/api.md, "/financial/settings"), the options of the readjustment rule:
-- whether a negative accumulated index lowers the rent, and the indices
-- highest_index and lowest_index compare, in order of preference on a tie.
-- The defaults are what every company had before they were stored:
-- reductions kept, IGP-M, IPCA and INPC compared.
ALTER TABLE companies
    ADD COLUMN readjust_allow_reduction boolean NOT NULL DEFAULT false,
    ADD COLUMN readjust_candidates text[] NOT NULL DEFAULT '{IGP-M,IPCA,INPC}'
        CONSTRAINT companies_readjust_candidates_check CHECK (
            cardinality(readjust_candidates) BETWEEN 1 AND 8
            AND array_position(readjust_candidates, NULL) IS NULL
            AND readjust_candidates <@ ARRAY['IGP-M', 'INCC-M', 'INPC', 'IVAR', 'IPC-BR', 'IPCA', 'IPC-FIPE', 'IGP-DI']);
