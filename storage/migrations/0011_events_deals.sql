-- Calendar events completed (spec 000) with their calendars, files and
-- feedbacks; deals with their funnels and steps, and the step history the
-- deal-conversion reports read. The events and deals tables came minimal
-- with the contracts.

-- (User groups, which an event's guest groups point at, came with 0010.)

CREATE TABLE calendars (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    name       text NOT NULL,
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

-- Sales funnels and their ordered steps.
CREATE TABLE funnels (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    name       text NOT NULL,
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

CREATE TABLE funnel_steps (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    funnel_id  bigint NOT NULL,
    name       text NOT NULL,
    position   integer NOT NULL CONSTRAINT funnel_steps_position_check CHECK (position >= 1),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    -- what a deal's (funnel_id, step_id) points at: a step of that funnel
    UNIQUE (company_id, funnel_id, id),
    CONSTRAINT funnel_steps_funnel_fk FOREIGN KEY (company_id, funnel_id) REFERENCES funnels (company_id, id)
);
CREATE INDEX funnel_steps_funnel ON funnel_steps (company_id, funnel_id, position);

ALTER TABLE deals
    ADD COLUMN funnel_id   bigint,
    ADD COLUMN step_id     bigint,
    ADD COLUMN user_id     bigint,
    ADD COLUMN person_id   bigint,
    ADD COLUMN building_id bigint,
    -- the team the deal is counted for in the reports (filter[teamIn][])
    ADD COLUMN team_id     bigint,
    ADD COLUMN status      text NOT NULL DEFAULT 'open' CONSTRAINT deals_status_check CHECK (status IN ('open', 'won', 'lost')),
    ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}',
    ADD CONSTRAINT deals_step_check CHECK (step_id IS NULL OR funnel_id IS NOT NULL),
    ADD CONSTRAINT deals_funnel_fk FOREIGN KEY (company_id, funnel_id) REFERENCES funnels (company_id, id),
    -- a deal's step is a step of its funnel
    ADD CONSTRAINT deals_step_fk FOREIGN KEY (company_id, funnel_id, step_id) REFERENCES funnel_steps (company_id, funnel_id, id),
    ADD CONSTRAINT deals_user_fk FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id),
    ADD CONSTRAINT deals_person_fk FOREIGN KEY (company_id, person_id) REFERENCES persons (company_id, id),
    ADD CONSTRAINT deals_building_fk FOREIGN KEY (company_id, building_id) REFERENCES buildings (company_id, id),
    ADD CONSTRAINT deals_team_fk FOREIGN KEY (company_id, team_id) REFERENCES teams (company_id, id);
CREATE INDEX deals_funnel ON deals (company_id, funnel_id, step_id);
CREATE INDEX deals_user ON deals (company_id, user_id);
CREATE INDEX deals_team ON deals (company_id, team_id);
CREATE INDEX deals_person ON deals (company_id, person_id);
CREATE INDEX deals_building ON deals (company_id, building_id);

-- When a deal entered each step: one row per entry, written by the deals'
-- hook in the deal write's transaction. The reports read it.
CREATE TABLE deal_step_history (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    deal_id    bigint NOT NULL,
    funnel_id  bigint NOT NULL,
    step_id    bigint NOT NULL,
    entered_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT deal_step_history_deal_fk FOREIGN KEY (company_id, deal_id) REFERENCES deals (company_id, id) ON DELETE CASCADE,
    -- a step deals have passed through is kept (409): the reports read it
    CONSTRAINT deal_step_history_step_fk FOREIGN KEY (company_id, funnel_id, step_id)
        REFERENCES funnel_steps (company_id, funnel_id, id)
);
CREATE INDEX deal_step_history_deal ON deal_step_history (company_id, deal_id, entered_at);
CREATE INDEX deal_step_history_funnel ON deal_step_history (company_id, funnel_id, step_id);

ALTER TABLE events
    ADD COLUMN father_id        bigint,
    ADD COLUMN recurrence_id    bigint,
    ADD COLUMN calendar_id      bigint,
    ADD COLUMN type             text CONSTRAINT events_type_check CHECK (type IN (
                                    'task', 'reminder', 'meet', 'visit', 'whatsapp', 'email', 'call', 'inspect',
                                    'maintenance', 'billing')),
    ADD COLUMN status           text NOT NULL DEFAULT 'scheduled' CONSTRAINT events_status_check CHECK (status IN (
                                    'cancelled', 'concluded', 'scheduled', 'recurrent', 'late', 'five_days_late',
                                    'thirty_days_late')),
    ADD COLUMN guest            bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN guest_group      bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN guest_access     text CONSTRAINT events_guest_access_check CHECK (guest_access IN ('full', 'invite', 'view')),
    ADD COLUMN tag              bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN initial_date     timestamptz,
    ADD COLUMN final_date       timestamptz,
    -- the zone the event's dates are read in (its day, its occurrences)
    ADD COLUMN time_zone        text NOT NULL DEFAULT 'America/Sao_Paulo' CONSTRAINT events_time_zone_check CHECK (time_zone IN (
                                    'America/Sao_Paulo', 'America/Noronha', 'America/Manaus', 'America/Rio_Branco',
                                    'Atlantic/Azores', 'America/Costa_Rica', 'America/Tijuana', 'America/Sitka',
                                    'Pacific/Gambier', 'Pacific/Honolulu', 'Pacific/Midway')),
    ADD COLUMN created_by       bigint,
    ADD COLUMN building_id      bigint,
    ADD COLUMN deal_id          bigint,
    ADD COLUMN person_id        bigint,
    ADD COLUMN invite_person    boolean NOT NULL DEFAULT false,
    ADD COLUMN endless          boolean NOT NULL DEFAULT false,
    ADD COLUMN all_day          boolean NOT NULL DEFAULT false,
    ADD COLUMN description      text,
    ADD COLUMN address          text,
    ADD COLUMN reminder         text[] NOT NULL DEFAULT '{}' CONSTRAINT events_reminder_check CHECK (reminder <@ ARRAY[
                                    'START', '5_MIN', '15_MIN', '30_MIN', '1_HOUR', '2_HOUR', '6_HOUR', '1_DAY', '2_DAY',
                                    '5_DAY', '1_WEEK', '2_WEEK', '1_MONTH']),
    ADD COLUMN private          boolean NOT NULL DEFAULT false,
    ADD COLUMN recurrency       text CONSTRAINT events_recurrency_check CHECK (recurrency IN ('daily', 'weekly', 'monthly', 'yearly')),
    -- the event's id in a synced Google calendar (filter[googleId])
    ADD COLUMN google_id        text,
    -- the latest of the event's feedbacks, kept by the feedbacks' hook
    ADD COLUMN last_feedback_id bigint,
    ADD COLUMN custom_fields    jsonb NOT NULL DEFAULT '{}',
    ADD CONSTRAINT events_period_check CHECK (final_date >= initial_date),
    ADD CONSTRAINT events_father_check CHECK (father_id <> id),
    ADD CONSTRAINT events_recurrence_check CHECK (recurrence_id <> id),
    ADD CONSTRAINT events_father_fk FOREIGN KEY (company_id, father_id) REFERENCES events (company_id, id) ON DELETE SET NULL (father_id),
    -- the occurrences written apart (moved, cancelled) go with their series
    ADD CONSTRAINT events_recurrence_fk FOREIGN KEY (company_id, recurrence_id) REFERENCES events (company_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT events_calendar_fk FOREIGN KEY (company_id, calendar_id) REFERENCES calendars (company_id, id),
    ADD CONSTRAINT events_created_by_fk FOREIGN KEY (company_id, created_by) REFERENCES users (company_id, id),
    ADD CONSTRAINT events_building_fk FOREIGN KEY (company_id, building_id) REFERENCES buildings (company_id, id),
    ADD CONSTRAINT events_deal_fk FOREIGN KEY (company_id, deal_id) REFERENCES deals (company_id, id),
    ADD CONSTRAINT events_person_fk FOREIGN KEY (company_id, person_id) REFERENCES persons (company_id, id);
CREATE INDEX events_father ON events (company_id, father_id);
CREATE INDEX events_recurrence ON events (company_id, recurrence_id);
CREATE INDEX events_calendar ON events (company_id, calendar_id, initial_date);
CREATE INDEX events_initial ON events (company_id, initial_date);
CREATE INDEX events_created_by ON events (company_id, created_by);
CREATE INDEX events_building ON events (company_id, building_id);
CREATE INDEX events_deal ON events (company_id, deal_id);
CREATE INDEX events_person ON events (company_id, person_id);
CREATE INDEX events_recurring ON events (company_id, id) WHERE recurrency IS NOT NULL;

-- Files attached to an event (include[files]).
CREATE TABLE event_files (
    company_id   bigint NOT NULL REFERENCES companies (id),
    id           bigint GENERATED ALWAYS AS IDENTITY,
    event_id     bigint NOT NULL,
    name         text NOT NULL,
    url          text NOT NULL,
    content_type text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT event_files_event_fk FOREIGN KEY (company_id, event_id) REFERENCES events (company_id, id) ON DELETE CASCADE
);
CREATE INDEX event_files_event ON event_files (company_id, event_id);

-- What happened at an event, as its participants tell it
-- (include[lastFeedback]).
CREATE TABLE event_feedbacks (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    event_id   bigint NOT NULL,
    user_id    bigint,
    feedback   text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT event_feedbacks_event_fk FOREIGN KEY (company_id, event_id) REFERENCES events (company_id, id) ON DELETE CASCADE,
    CONSTRAINT event_feedbacks_user_fk FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id)
);
CREATE INDEX event_feedbacks_event ON event_feedbacks (company_id, event_id, id);
