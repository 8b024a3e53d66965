-- Outboxer schema for PostgreSQL. Every statement is idempotent: Outboxer runs this file at startup
-- unless outboxer.schema.create=false, and teams that run their own migrations can apply it as is.
-- Times are milliseconds since the epoch, always taken from the database clock.

create table if not exists outboxer_message (
    id              bigint generated always as identity primary key,
    outbox          varchar(100)  not null,
    partition_no    integer       not null,
    group_key       varchar(500),
    message_type    varchar(500)  not null,
    payload         text          not null,
    -- 0 ready, 1 held behind a failing head of its group, 2 dead, 3 waiting for its retry time
    state           smallint      not null default 0,
    attempts        integer       not null default 0,
    created_at      bigint        not null default (extract(epoch from clock_timestamp()) * 1000)::bigint,
    next_attempt_at bigint        not null default (extract(epoch from clock_timestamp()) * 1000)::bigint,
    last_attempt_at bigint,
    last_error      varchar(4000),
    -- The W3C traceparent of the span the message was published in; null outside a trace.
    trace_parent    varchar(55)
);

-- The worker's scan: ready rows (state 0) of one partition in id order, read as the range
-- state < 1 ordered by (state, id). Held, dead and waiting rows lie outside that range, so a
-- blocked group's backlog costs the scan nothing; and no other index can give that order, so
-- the planner cannot walk the primary key past blocked rows instead, whatever its statistics.
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

-- Operators' view: dead messages per outbox.
create index if not exists outboxer_message_dead
    on outboxer_message (outbox, id) where state = 2;

-- One row per outbox: the terms every server sharing the database must agree on: the partition
-- count its pending rows were hashed with, and the settings by which they were written and are read
-- ("ordering=group,wait-for-writers=true,serialize-writes=false").
create table if not exists outboxer_outbox (
    name        varchar(100) primary key,
    partitions  integer      not null,
    terms       varchar(500)
);

-- One row per (outbox, partition): which worker in the cluster may deliver it, until when.
create table if not exists outboxer_lease (
    outbox        varchar(100) not null,
    partition_no  integer      not null,
    owner         varchar(200),
    epoch         bigint       not null default 0,
    expires_at    bigint       not null default 0,
    -- Raised, in the same transaction, by every change outside the partition's worker that makes
    -- its rows ready again (an operator's revive, discard or release; the release of held rows
    -- when an outbox starts without group ordering): a worker that starts its reads past its
    -- last batch reads from the first row again when it changed (ADR 0014).
    repairs       bigint       not null default 0,
    primary key (outbox, partition_no)
);

-- One row per (outbox, node delivering it): the node's last heartbeat. The nodes heard from within
-- the lease ttl share the outbox's partitions fairly; a node deletes its rows when it stops.
create table if not exists outboxer_node (
    outbox        varchar(100) not null,
    node_id       varchar(200) not null,
    heartbeat_at  bigint       not null,
    primary key (outbox, node_id)
);

-- The consumer side (io.outboxer.Inbox): per (outbox, group), the last message id processed. A
-- consumer's claim of message n is one conditional upsert, so of two consumers racing on one group
-- only one sees n as new.
create table if not exists outboxer_inbox (
    outbox        varchar(100) not null,
    group_key     varchar(500) not null,
    last_id       bigint       not null,
    primary key (outbox, group_key)
);
