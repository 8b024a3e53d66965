-- Every statement Outboxer runs on SQLite, by name (a "-- name:" line opens each one). The
-- PostgreSQL file beside this one has the same names. Times are milliseconds since the epoch from
-- the database clock, which has one value per statement. Lists of ids or group keys are bound as
-- one JSON array, so each statement has one text whatever the list's length.

-- SQLite has one writer at a time, so id order is commit order: publishers need no lock and
-- workers need not look for transactions in flight (no GROUP_LOCK, INSERT_ANNOUNCED,
-- LAST_ID, IN_FLIGHT or OLDEST_IN_FLIGHT statement), and so always read from a partition's first
-- ready row (no READ_READY_FROM or READ_FENCE statement). A batch read commits as every transaction
-- does (no READ_COMMITS_UNFLUSHED statement). SQLite's planner does not look at the table's size (no
-- PLAN_BY_INDEX statement).

-- name: PROMOTE_DUE
update outboxer_message set state = 0
 where outbox = :outbox and partition_no = :partition and state = 3
   and next_attempt_at <= cast(unixepoch('subsec') * 1000 as integer)

-- name: HEAD_WAITS
select id from outboxer_message
 where outbox = :outbox and partition_no = :partition and state = 3 limit 1

-- name: READ_READY
select id, group_key, message_type, payload, attempts, trace_parent from outboxer_message
 where outbox = :outbox and partition_no = :partition and state < 1 and id < :bound
 order by state, id limit :limit

-- Whether a group of the partition is blocked (1) or not (0): a retrying head or a held row, two
-- index probes. Only the partition's lease holder makes a head wait (in a completion) or holds rows
-- (in a batch read, those of a blocked group), and an operator's repair waits for the lease row
-- that a batch read locks first: a partition without a blocked group has none until the read's
-- transaction ends, whose reads then skip BLOCKED_FROM and its list of a thousand group keys.
-- name: PARTITION_BLOCKED
select exists (select 1 from outboxer_message m
                where m.outbox = :outbox and m.partition_no = :partition and m.state = 3)
    or exists (select 1 from outboxer_message m
                where m.outbox = :outbox and m.partition_no = :partition and m.state = 1)

-- Per group of the batch, where PARTITION_BLOCKED found a blocked group: its retrying head, its
-- first held row and its head due again, one index entry each.
-- name: BLOCKED_FROM
select k.g as group_key,
       (select m.id from outboxer_message m
         where m.outbox = :outbox and m.partition_no = :partition and m.state = 3
           and m.group_key = k.g limit 1) as retrying,
       (select m.id from outboxer_message m
         where m.outbox = :outbox and m.partition_no = :partition and m.state = 1
           and m.group_key = k.g order by m.id limit 1) as first_held,
       (select m.id from outboxer_message m
         where m.outbox = :outbox and m.partition_no = :partition and m.state = 0
           and m.attempts > 0 and m.group_key = k.g limit 1) as due_again
  from (select value as g from json_each(:groups)) as k

-- name: HOLD_ROWS
update outboxer_message set state = 1
 where state = 0 and id in (select value from json_each(:ids))

-- name: FENCE
update outboxer_lease set epoch = epoch
 where outbox = :outbox and partition_no = :partition and owner = :owner and epoch = :epoch
   and expires_at > cast(unixepoch('subsec') * 1000 as integer)

-- name: DELETE_ROWS
delete from outboxer_message
 where state = 0 and id in (select value from json_each(:ids))

-- name: FAIL_DEAD
update outboxer_message
   set attempts = attempts + 1, last_error = :error, state = 2,
       last_attempt_at = cast(unixepoch('subsec') * 1000 as integer)
 where id = :id and state = 0

-- name: FAIL_RETRY
update outboxer_message
   set attempts = attempts + 1, last_error = :error, state = 3,
       last_attempt_at = cast(unixepoch('subsec') * 1000 as integer),
       next_attempt_at = cast(unixepoch('subsec') * 1000 as integer) + :delay
 where id = :id and state = 0

-- name: RELEASE_GROUP
update outboxer_message set state = 0
 where outbox = :outbox and partition_no = :partition and group_key = :group and state = 1

-- name: RELEASE_OUTBOX_HELD
update outboxer_message set state = 0 where outbox = :outbox and state = 1

-- An operator's repair (ADR 0014), its first statement. SQLite's workers always read from the first
-- row, so the count itself only keeps the schema the same as PostgreSQL's; what matters here is
-- that the repair writes before it reads, so that its transaction is the writer from its start: a
-- deferred transaction that read first could not write once another connection on the file had
-- committed (SQLITE_BUSY_SNAPSHOT, which no busy timeout waits out).
-- name: MARK_REPAIR_OF_MESSAGE
update outboxer_lease set repairs = repairs + 1
 where outbox = :outbox
   and partition_no = (select partition_no from outboxer_message where outbox = :outbox and id = :id)

-- name: MARK_REPAIR_OF_PARTITION
update outboxer_lease set repairs = repairs + 1
 where outbox = :outbox and partition_no = :partition

-- name: MARK_REPAIR_ALL
update outboxer_lease set repairs = repairs + 1 where outbox = :outbox

-- name: INSERT_OUTBOX
insert into outboxer_outbox (name, partitions, terms) values (:name, :partitions, :terms)
on conflict do nothing

-- name: RECORDED_PARTITIONS
select partitions from outboxer_outbox where name = :name

-- name: RECORDED_OUTBOX
select partitions, terms from outboxer_outbox where name = :name

-- name: COUNT_OUTBOX_ROWS
select count(*) from outboxer_message where outbox = :name

-- name: UPDATE_OUTBOX
update outboxer_outbox set partitions = :partitions, terms = :terms where name = :name

-- name: INSERT_LEASE
insert into outboxer_lease (outbox, partition_no) values (:outbox, :partition) on conflict do nothing

-- name: ACQUIRE_LEASE
update outboxer_lease
   set owner = :owner, epoch = epoch + 1,
       expires_at = cast(unixepoch('subsec') * 1000 as integer) + :ttl
 where outbox = :outbox and partition_no = :partition
   and (owner is null or expires_at <= cast(unixepoch('subsec') * 1000 as integer))

-- name: LEASE_EPOCH
select epoch from outboxer_lease where outbox = :outbox and partition_no = :partition

-- name: RENEW_LEASE
update outboxer_lease set expires_at = cast(unixepoch('subsec') * 1000 as integer) + :ttl
 where outbox = :outbox and partition_no = :partition and owner = :owner and epoch = :epoch
   and expires_at > cast(unixepoch('subsec') * 1000 as integer)

-- name: RELEASE_LEASE
update outboxer_lease set owner = null, expires_at = 0
 where outbox = :outbox and partition_no = :partition and owner = :owner and epoch = :epoch
   and expires_at > cast(unixepoch('subsec') * 1000 as integer)

-- name: HEARTBEAT
insert into outboxer_node (outbox, node_id, heartbeat_at)
values (:outbox, :node, cast(unixepoch('subsec') * 1000 as integer))
on conflict (outbox, node_id) do update set heartbeat_at = excluded.heartbeat_at

-- name: FORGET_NODES
delete from outboxer_node
 where outbox = :outbox and heartbeat_at < cast(unixepoch('subsec') * 1000 as integer) - :forget

-- The servers other than :node that delivered the outbox within :ttl.
-- name: COUNT_OTHER_NODES
select count(*) from outboxer_node
 where outbox = :outbox and node_id <> :node and heartbeat_at > cast(unixepoch('subsec') * 1000 as integer) - :ttl

-- name: COUNT_NODES
select count(*) from outboxer_node
 where outbox = :outbox and heartbeat_at > cast(unixepoch('subsec') * 1000 as integer) - :ttl

-- name: LEAVE
delete from outboxer_node where outbox = :outbox and node_id = :node

-- name: COUNT_BY_STATE
select partition_no, state, count(*) as messages from outboxer_message where outbox = :outbox
 group by partition_no, state

-- name: FIND_MESSAGE
select partition_no, group_key, state, attempts from outboxer_message
 where outbox = :outbox and id = :id

-- name: REVIVE_ALL_DEAD
update outboxer_message
   set state = 0, attempts = 0, next_attempt_at = cast(unixepoch('subsec') * 1000 as integer)
 where outbox = :outbox and state = 2

-- name: REVIVE_DEAD
update outboxer_message
   set state = 0, attempts = 0, next_attempt_at = cast(unixepoch('subsec') * 1000 as integer)
 where outbox = :outbox and state = 2 and id = :id

-- name: DELETE_MESSAGE
delete from outboxer_message where id = :id

-- name: REVIVE_DEAD_GROUP
update outboxer_message
   set state = 0, attempts = 0, next_attempt_at = cast(unixepoch('subsec') * 1000 as integer)
 where outbox = :outbox and state = 2 and group_key = :group

-- name: LIST_LEASES
select partition_no, owner, epoch, expires_at from outboxer_lease
 where outbox = :outbox order by partition_no

-- name: PAGE_MESSAGES
select id, partition_no, group_key, message_type, state, attempts, created_at, last_attempt_at,
       next_attempt_at, last_error
  from outboxer_message
 where outbox = :outbox and state = :state and id > :after
 order by id limit :limit

-- name: GROUP_FAILING
select id from outboxer_message
 where outbox = :outbox and partition_no = :partition and group_key = :group
   and (state = 3 or (state = 0 and attempts > 0))
 limit 1

-- name: RETRY_GROUP_NOW
update outboxer_message set state = 0, next_attempt_at = cast(unixepoch('subsec') * 1000 as integer)
 where outbox = :outbox and partition_no = :partition and group_key = :group and state = 3

-- name: ADD_TRACE_PARENT
alter table outboxer_message add column trace_parent text

-- name: ADD_LEASE_REPAIRS
alter table outboxer_lease add column repairs integer not null default 0

-- name: ADD_OUTBOX_TERMS
alter table outboxer_outbox add column terms text

-- name: BACKLOG
select outbox,
       sum(case when state <> 2 then 1 else 0 end) as pending,
       sum(case when state = 2 then 1 else 0 end) as dead,
       min(case when state <> 2 then created_at end) as oldest_created_at,
       count(distinct case when state = 3 or (state = 0 and attempts > 0) then group_key end)
         as failing_groups,
       cast(unixepoch('subsec') * 1000 as integer) as now_millis
  from outboxer_message group by outbox

-- name: INBOX_CLAIM
insert into outboxer_inbox (outbox, group_key, last_id) values (:outbox, :group, :id)
on conflict (outbox, group_key) do update set last_id = excluded.last_id
 where outboxer_inbox.last_id < excluded.last_id
