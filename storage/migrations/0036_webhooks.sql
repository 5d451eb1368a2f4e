-- Signed webhooks for integrators: docs/api.md, "Webhooks", and
-- docs/jobs.md, "webhook:deliver".
--
-- An endpoint is a company's URL and the event types it subscribes to
-- ('*': every type). Its secret (whsec_ and base64, Standard Webhooks)
-- signs every delivery; after a rotation the previous one signs beside it
-- until previous_secret_expires_at. failing_since is the first failure of
-- the run of failures the endpoint is in (NULL after a success): five days
-- of them disable it (disabled_at).
CREATE TABLE webhook_endpoints (
    company_id                 bigint NOT NULL REFERENCES companies (id),
    id                         bigint GENERATED ALWAYS AS IDENTITY,
    url                        text NOT NULL,
    events                     text[] NOT NULL DEFAULT '{*}',
    description                text,
    active                     boolean NOT NULL DEFAULT true,
    secret                     text NOT NULL,
    previous_secret            text,
    previous_secret_expires_at timestamptz,
    failing_since              timestamptz,
    disabled_at                timestamptz,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);
-- what every emission asks first: has the company an active endpoint?
CREATE INDEX webhook_endpoints_active ON webhook_endpoints (company_id) WHERE active;

-- The events, written in the transaction of the change that causes them
-- (storage.EmitEvents), only while an active endpoint of the company
-- subscribes to their type (webhook.disabled is kept always). data is the
-- record as GET returns it, or the job: json, kept as written, in its
-- keys' order.
CREATE TABLE webhook_events (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    type       text NOT NULL,
    data       json NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);
CREATE INDEX webhook_events_type ON webhook_events (company_id, type, id);
CREATE INDEX webhook_events_created ON webhook_events (company_id, created_at);

-- One delivery per endpoint and event (and one more per resend), carried
-- by a webhook:deliver job: its state, the attempts made, and what the
-- last one got back.
CREATE TABLE webhook_deliveries (
    company_id      bigint NOT NULL,
    id              bigint GENERATED ALWAYS AS IDENTITY,
    endpoint_id     bigint NOT NULL,
    event_id        bigint NOT NULL,
    status          text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'retrying', 'delivered', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    response_status integer,
    duration_ms     integer,
    response_body   text,
    error           text,
    last_attempt_at timestamptz,
    delivered_at    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT webhook_deliveries_endpoint_fk FOREIGN KEY (company_id, endpoint_id)
        REFERENCES webhook_endpoints (company_id, id) ON DELETE CASCADE,
    CONSTRAINT webhook_deliveries_event_fk FOREIGN KEY (company_id, event_id)
        REFERENCES webhook_events (company_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (company_id, endpoint_id, id);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (company_id, event_id);

-- A job's lane (docs/jobs.md, "Lanes"): the jobs of one lane run at most
-- their kind's lane limit at a time in a worker (a webhook endpoint's
-- deliveries: 'webhook:<endpoint id>'). NULL: no lane.
ALTER TABLE jobs ADD COLUMN lane text;
