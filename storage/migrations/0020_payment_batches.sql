-- Payment batches (/financial/paymentBatch): the payable ledger entries a
-- company sends to its bank in one payment remittance (CNAB 240, package
-- cnab/pagamento) of one account, and what the bank's return files say of
-- them. They share with the collection batches (0016) the remittance files
-- (batch_files, batch_type 'payment') and the return files and their lines
-- (batch_return_files, batch_return_lines). docs/api.md, "Payment
-- batches"; docs/jobs.md, "batch:file and batch:return for payment
-- batches"; docs/ledger.md, "A payable paid from a bank return file".

-- What a payment needs beside the collection columns: the account's own
-- file sequence of payment remittances (a bank numbers the files of its
-- payment agreement apart from those of its collection agreement), the
-- payment agreement's code, the ISPB of a payee's institution (a PIX to
-- account data names it), and the boleto a payable is paid with.
ALTER TABLE accounts
    ADD COLUMN next_payment_file_sequence bigint NOT NULL DEFAULT 1
        CONSTRAINT accounts_next_payment_file_sequence_check CHECK (next_payment_file_sequence >= 1),
    ADD COLUMN payment_covenant text
        CONSTRAINT accounts_payment_covenant_check CHECK (length(payment_covenant) BETWEEN 1 AND 20);

ALTER TABLE persons
    ADD COLUMN ispb text CONSTRAINT persons_ispb_check CHECK (ispb ~ '^[0-9]{8}$');

-- the 44-digit barcode or the 47-digit digitable line of the boleto a
-- payable entry is paid with; its check digits are verified when it joins
-- a payment batch
ALTER TABLE transactions
    ADD COLUMN ticket_barcode text CONSTRAINT transactions_ticket_barcode_check
        CHECK (ticket_barcode ~ '^([0-9]{44}|[0-9]{47})$');

-- A payment batch: the payable entries paid from one account in one
-- remittance. open until its file is written, closed after; titles and
-- total count the payments in it (added or sent).
CREATE TABLE payment_batches (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    description   text,
    account_id    bigint NOT NULL,
    status        text NOT NULL DEFAULT 'open' CONSTRAINT payment_batches_status_check CHECK (status IN ('open', 'closed')),
    titles        integer NOT NULL DEFAULT 0,
    total         numeric(16,2) NOT NULL DEFAULT 0,
    file_id       bigint,
    file_sequence bigint,
    file_name     text,
    closed_at     timestamptz,
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT payment_batches_account_fk FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id),
    CONSTRAINT payment_batches_file_fk FOREIGN KEY (company_id, file_id) REFERENCES batch_files (company_id, id)
);
CREATE INDEX payment_batches_account ON payment_batches (company_id, account_id);
CREATE INDEX payment_batches_file ON payment_batches (company_id, file_id);

-- A payable entry in a payment batch, with the payment as the bank gets
-- it, fixed when it was added: the reference (seu número) the bank
-- returns unchanged, by which a return file's line finds it; the method
-- (a transfer to an account, a PIX to account data or to a key, a boleto by
-- its barcode), the amounts, the day it falls due, and the payee's data,
-- copied (the person is not referenced: the payment pays what was
-- checked). The account is the batch's. A batch holds up to 100,000 of
-- them at a time: every index and foreign key here is paid for at each
-- insert.
--   added:    in the batch: not sent while the batch is open, sent once
--             its file is written (the API reads it 'sent' then), so that
--             writing a file of 100,000 payments writes no payment row
--   reverted: taken back after the file; the bank is to cancel it
--   paid:     the bank paid it (return file); the entry is paid
--   failed:   the bank refused it (return file); info says why
-- An entry is in at most one batch as added.
CREATE TABLE payment_batch_transactions (
    company_id     bigint NOT NULL REFERENCES companies (id),
    id             bigint GENERATED ALWAYS AS IDENTITY,
    batch_id       bigint NOT NULL,
    transaction_id bigint,
    state          text NOT NULL DEFAULT 'added' CONSTRAINT payment_batch_transactions_state_check
                       CHECK (state IN ('added', 'reverted', 'paid', 'failed')),
    reference      text NOT NULL,
    method         text NOT NULL CONSTRAINT payment_batch_transactions_method_check
                       CHECK (method IN ('transfer', 'pix_account', 'pix_key', 'boleto')),
    amount         numeric(14,2) NOT NULL CONSTRAINT payment_batch_transactions_amount_check CHECK (amount > 0),
    nominal        numeric(14,2) NOT NULL,
    discount       numeric(14,2) NOT NULL DEFAULT 0,
    surcharge      numeric(14,2) NOT NULL DEFAULT 0,
    due_date       date NOT NULL,
    -- where the payment goes in the file: payments of one forma de
    -- lançamento together (package jobs computes it), read in index order
    file_order     smallint NOT NULL DEFAULT 0,
    payee_name     text NOT NULL,
    payee_document text NOT NULL,
    bank           text,
    ispb           text,
    agency         text,
    agency_digit   text,
    account        text,
    account_digit  text,
    account_type   text,
    pix_key        text,
    pix_key_type   text,
    barcode        text,
    -- what the bank's return files said: its own number of the payment,
    -- the day and the amount it paid, and its words of the last line that
    -- changed the payment
    bank_number    text,
    paid_at        date,
    paid_amount    numeric(14,2),
    info           text,
    reverted_at    timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT payment_batch_transactions_reference_key UNIQUE (company_id, reference),
    CONSTRAINT payment_batch_transactions_batch_fk FOREIGN KEY (company_id, batch_id)
        REFERENCES payment_batches (company_id, id) ON DELETE CASCADE,
    -- a deleted entry leaves the record of its payment
    CONSTRAINT payment_batch_transactions_transaction_fk FOREIGN KEY (company_id, transaction_id)
        REFERENCES transactions (company_id, id) ON DELETE SET NULL (transaction_id)
);
CREATE UNIQUE INDEX payment_batch_transactions_active ON payment_batch_transactions (company_id, transaction_id)
    WHERE state = 'added';
CREATE INDEX payment_batch_transactions_batch ON payment_batch_transactions (company_id, batch_id, file_order, id);
CREATE INDEX payment_batch_transactions_transaction ON payment_batch_transactions (company_id, transaction_id);
-- the payments taken back and not reported on since, which every file of
-- the account lists
CREATE INDEX payment_batch_transactions_reverted ON payment_batch_transactions (company_id, batch_id)
    WHERE state = 'reverted';
