-- The name a company's billing reminders are sent by (docs/api.md,
-- "/financial/settings", reminders_sender_name): the display name of the
-- messages' From header and the name that signs them. Null, the default,
-- keeps what every company had before this migration: the company's name
-- (or the display name of the operator's PROPFIN_SMTP_FROM). One line of
-- 1 to 100 characters, with no control character: it goes into a header.
ALTER TABLE companies ADD COLUMN reminders_sender_name text
    CONSTRAINT companies_reminders_sender_name_check CHECK (
        char_length(reminders_sender_name) BETWEEN 1 AND 100
        AND reminders_sender_name !~ '[[:cntrl:]]');
