-- Billing reminders (régua de cobrança; docs/jobs.md, "invoices:remind";
-- docs/api.md, "/financial/reminders" and "/financial/settings").
--
-- A company's reminder settings live on its row: whether reminders are
-- sent (off until the company turns them on: a deploy never starts
-- e-mailing a company's payers unasked), the rules, days relative to the
-- due date (-5: five days before, 0: on the day, 3: three days after), and
-- the address the payers' replies go to (null: the sender's).
ALTER TABLE companies
    ADD COLUMN reminders_enabled boolean NOT NULL DEFAULT false,
    ADD COLUMN reminder_days integer[] NOT NULL DEFAULT '{-5,0,3,10}'
        CONSTRAINT companies_reminder_days_check CHECK (
            cardinality(reminder_days) BETWEEN 1 AND 10
            AND array_position(reminder_days, NULL) IS NULL
            AND -60 <= ALL (reminder_days) AND 180 >= ALL (reminder_days)),
    ADD COLUMN reminders_reply_to text
        CONSTRAINT companies_reminders_reply_to_check CHECK (length(reminders_reply_to) BETWEEN 3 AND 254);

-- One row per reminder of an invoice, rule and date: the row is written
-- (status sending) and committed before the message is handed to the mail
-- server, and its unique key is what makes a reminder go at most once
-- however often the run of a date runs. A row stays when its invoice is
-- deleted (no foreign key), as the invoice's history does.
--
-- status: sending (handed to the server, outcome not yet recorded), sent,
-- failed (not taken by the server, or never tried: the run's retries and
-- a run of the same date again send it), refused (the server refused the
-- address or the message for good, a 5xx reply: not tried again),
-- unknown (the connection broke after the whole message was written, or
-- the run stopped while sending: it may have gone, and is not sent again),
-- skipped (no e-mail address to send to).
CREATE TABLE reminders (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    invoice_id bigint NOT NULL,
    -- the rule: days from the due date to the reminder's date
    rule       integer NOT NULL,
    -- the reminder's date (the due date plus rule days), in the company's zone
    date       date NOT NULL,
    due_date   date NOT NULL,
    "to"       text,
    subject    text NOT NULL DEFAULT '',
    status     text NOT NULL CONSTRAINT reminders_status_check CHECK (status IN (
                   'sending', 'sent', 'failed', 'refused', 'unknown', 'skipped')),
    attempts   integer NOT NULL DEFAULT 1,
    error      text,
    -- the run (job) that wrote the row last
    job_id     bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- when the last attempt began, and when the server took the message
    claimed_at timestamptz NOT NULL DEFAULT now(),
    sent_at    timestamptz,
    PRIMARY KEY (company_id, id),
    CONSTRAINT reminders_once UNIQUE (company_id, invoice_id, rule, date),
    CONSTRAINT reminders_sent_check CHECK ((status = 'sent') = (sent_at IS NOT NULL))
);
CREATE INDEX reminders_date ON reminders (company_id, date, id);
-- the rows a run left sending, which the next run finds to mark unknown
CREATE INDEX reminders_sending ON reminders (company_id, claimed_at) WHERE status = 'sending';
