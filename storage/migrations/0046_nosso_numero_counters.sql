-- One nosso número counter per collection agreement of a bank account
-- (docs/api.md, "/financial/accounts"): the accounts of a company with the
-- same bank, agency, account, wallet, covenant and station (one per CNAB layout,
-- say) are one agreement at the bank, which knows a title by its number
-- alone, so they take their titles' numbers from one counter instead of
-- one each (two titles numbered 00000001 at one bank account).
--
-- accounts.numbering names the agreement: the bank, agency, account,
-- wallet, covenant and station (Sicredi's posto), blanks around them and
-- leading zeros dropped (the bank reads "0109" and "109" alike); null for
-- an account without a bank, or with neither an account number nor a
-- covenant, which issues no title and keeps its own counter.
ALTER TABLE accounts ADD COLUMN numbering text GENERATED ALWAYS AS (
    CASE WHEN bank IS NOT NULL AND coalesce(account, covenant) IS NOT NULL THEN
        bank || '/' || ltrim(btrim(coalesce(agency, '')), '0') || '/' || ltrim(btrim(coalesce(account, '')), '0') ||
        '/' || ltrim(btrim(coalesce(wallet, '')), '0') || '/' || ltrim(btrim(coalesce(covenant, '')), '0') ||
        '/' || ltrim(btrim(coalesce(station, '')), '0')
    END) STORED;
CREATE INDEX accounts_numbering ON accounts (company_id, numbering);

-- The counter of an agreement: the next sequence its titles get, taken
-- under this row's lock (storage.TakeNossoNumeros) and raised when an
-- account joins the agreement (an update giving it the agreement's
-- fields) to the joining account's own next number. Rows are made when
-- first needed; this migration makes those of the agreements stored.
CREATE TABLE nosso_numero_counters (
    company_id        bigint NOT NULL REFERENCES companies (id),
    numbering         text NOT NULL,
    next_nosso_numero bigint NOT NULL CONSTRAINT nosso_numero_counters_next_check CHECK (next_nosso_numero >= 1),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, numbering)
);

-- Accounts stored before, several to one agreement, each with its own
-- counter: they keep their titles (numbers two of them already gave
-- alike stay so; a return file naming such accounts is read only with
-- account_id), and go on from the highest of their counters, the same
-- next number shown on each.
INSERT INTO nosso_numero_counters (company_id, numbering, next_nosso_numero)
SELECT company_id, numbering, max(next_nosso_numero)
FROM accounts WHERE numbering IS NOT NULL
GROUP BY company_id, numbering;

UPDATE accounts a SET next_nosso_numero = c.next_nosso_numero
FROM nosso_numero_counters c
WHERE c.company_id = a.company_id AND c.numbering = a.numbering AND a.next_nosso_numero <> c.next_nosso_numero;
