-- Outboxer schema for SQLite. Every statement is idempotent: Outboxer runs this file at startup
-- unless outboxer.schema.create=false, and teams that run their own migrations can apply it as is.
-- Times are milliseconds since the epoch, always taken from the database clock.
-- AUTOINCREMENT keeps ids strictly increasing, never reused after a delete.

create table if not exists outboxer_message (
    id              integer primary key autoincrement,
    outbox          text    not null,
    partition_no    integer not null,
    group_key       text,
    message_type    text    not null,
    payload         text    not null,
    -- 0 ready, 1 held behind a failing head of its group, 2 dead, 3 waiting for its retry time
    state           integer not null default 0,
    attempts        integer not null default 0,
    created_at      integer not null default (cast(unixepoch('subsec') * 1000 as integer)),
    next_attempt_at integer not null default (cast(unixepoch('subsec') * 1000 as integer)),
    last_attempt_at integer,
    last_error      text,
    -- The W3C traceparent of the span the message was published in; null outside a trace.
    trace_parent    text
);

create index if not exists outboxer_message_scan
    on outboxer_message (outbox, partition_no, state, id);

-- Heads waiting for their retry time: by due time, and by group. The held and waiting indexes
-- cover disjoint states, so no statement about one state can wander into the other's rows.
create index if not exists outboxer_message_waiting
    on outboxer_message (outbox, partition_no, next_attempt_at) where state = 3;
create index if not exists outboxer_message_waiting_group
    on outboxer_message (outbox, partition_no, group_key) where state = 3;

-- Failed heads due again (ready, attempts > 0), by group: a group's held rows wait only while it
-- has a failing head, waiting or due again. Rows are inserted with no attempts, so this index stays
-- as small as the number of failing groups and costs publishing nothing.
create index if not exists outboxer_message_retried
    on outboxer_message (outbox, partition_no, group_key) where state = 0 and attempts > 0;

-- Held rows by group: where a blocked group's backlog starts.
create index if not exists outboxer_message_held
    on outboxer_message (outbox, partition_no, group_key, id) where state = 1;

create index if not exists outboxer_message_dead
    on outboxer_message (outbox, id) where state = 2;

create table if not exists outboxer_outbox (
    name        text    primary key,
    partitions  integer not null,
    terms       text
);

create table if not exists outboxer_lease (
    outbox        text    not null,
    partition_no  integer not null,
    owner         text,
    epoch         integer not null default 0,
    expires_at    integer not null default 0,
    -- Raised by every change outside the partition's worker that makes its rows ready (ADR 0014).
    repairs       integer not null default 0,
    primary key (outbox, partition_no)
);

create table if not exists outboxer_node (
    outbox        text    not null,
    node_id       text    not null,
    heartbeat_at  integer not null,
    primary key (outbox, node_id)
);

create table if not exists outboxer_inbox (
    outbox        text    not null,
    group_key     text    not null,
    last_id       integer not null,
    primary key (outbox, group_key)
);
