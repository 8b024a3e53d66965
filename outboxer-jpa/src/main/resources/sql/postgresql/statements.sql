-- Every statement Outboxer runs on PostgreSQL, by name (a "-- name:" line opens each one). The
-- SQLite file beside this one has the same names. Times are milliseconds since the epoch from the
-- database clock: now() is the transaction's start, so all writes of one transaction agree. Lists
-- of ids or group keys are bound as one JSON array, so each statement has one text whatever the
-- list's length. A JSON array of ids is an array literal once its brackets are braces: read that
-- way, a batch's thousand ids cost a millisecond less than parsed as jsonb.

-- name: GROUP_LOCK
select 1 from pg_advisory_xact_lock(:key)

-- Commit-safe order without serialized writers (ADR 0010). The insert of a message with
-- wait-for-writers takes, before the identity draws its id, a shared lock on the message's
-- partition and, where its transaction holds none yet, a shared lock on the identity's next value
-- (a lower bound of every id the transaction will draw: ids only grow), which the transaction-local
-- setting outboxer.announced records. A rollback to a savepoint releases the locks taken after it
-- and undoes the setting with them, so that the next insert takes them again. All are advisory
-- locks of the two-integer form, which the bigint form of GROUP_LOCK never meets: a partition's is
-- (:space, partition) with a negative :space, an id's is (high 32 bits, low 32 bits), never
-- negative first. Shared locks never wait for each other, and a lock the transaction holds already
-- is taken again in its own memory. The sub-select runs before the row's identity is drawn.
-- name: INSERT_ANNOUNCED
insert into outboxer_message (outbox, partition_no, group_key, message_type, payload, trace_parent)
select :outbox, :partition, cast(:group as varchar), :type, :payload, cast(:trace as varchar)
  from (select pg_advisory_xact_lock_shared(cast(:space as integer), cast(:partition as integer)),
               case when current_setting('outboxer.announced', true) is distinct from 'yes' then
                 (select set_config('outboxer.announced', 'yes', true)
                    from (select coalesce(pg_sequence_last_value(cast(pg_get_serial_sequence('outboxer_message', 'id') as regclass)), 0) + 1 as b) f,
                         lateral pg_advisory_xact_lock_shared(cast(f.b >> 32 as integer), cast(cast(f.b as bit(32)) as integer)) i)
               end
        offset 0) announced
returning id

-- The last id the identity gave, whoever drew it (0 before the first). A worker reads it before
-- IN_FLIGHT: every id up to it was drawn by a transaction that had taken its locks before, so that
-- it has ended (and is visible, or rolled back) or shows in IN_FLIGHT.
-- name: LAST_ID
select coalesce(pg_sequence_last_value(cast(pg_get_serial_sequence('outboxer_message', 'id') as regclass)), 0)

-- The smallest id bound locked by a transaction that holds the lock of partition
-- (:space, :partition), or null. One read of the lock table: pg_locks is not transactional, each
-- call reads it as it is now. A holder that shows no bound yet is taking its locks and has drawn no
-- id: it will draw above the last value read before.
-- name: IN_FLIGHT
with l as materialized (
  select cast(classid as bigint) as k1, cast(objid as bigint) as k2, virtualtransaction as tx
    from pg_locks
   where locktype = 'advisory' and objsubid = 2 and mode = 'ShareLock' and granted
     and database = (select oid from pg_database where datname = current_database()))
select min((i.k1 << 32) | i.k2)
  from l p join l i on i.tx = p.tx and i.k1 < 2147483648
 where p.k2 = :partition and p.k1 = cast(cast(cast(:space as integer) as oid) as bigint)

-- Per partition of the outbox whose partition locks are (:space, n): the smallest id bound in
-- flight, the backend of the transaction that holds it (null for a prepared transaction) and how
-- long that transaction has been open, in milliseconds.
-- name: OLDEST_IN_FLIGHT
with l as materialized (
  select cast(classid as bigint) as k1, cast(objid as bigint) as k2, virtualtransaction as tx, pid
    from pg_locks
   where locktype = 'advisory' and objsubid = 2 and mode = 'ShareLock' and granted
     and database = (select oid from pg_database where datname = current_database()))
select distinct on (p.k2) p.k2 as partition_no, (i.k1 << 32) | i.k2 as bound, p.pid as pid,
       cast(extract(epoch from clock_timestamp() - a.xact_start) * 1000 as bigint) as open_millis
  from l p
  join l i on i.tx = p.tx and i.k1 < 2147483648
  left join pg_stat_activity a on a.pid = p.pid
 where p.k1 = cast(cast(cast(:space as integer) as oid) as bigint)
 order by p.k2, (i.k1 << 32) | i.k2

-- The identity's cache: a session that draws ids ahead of others holds ids below theirs that it
-- commits later, past IN_FLIGHT's look (ADR 0010), so commit-safe order needs 1.
-- name: ID_CACHE
select s.seqcache from pg_sequence s
 where s.seqrelid = cast(pg_get_serial_sequence('outboxer_message', 'id') as regclass)

-- name: ISOLATION_LEVEL
select current_setting('transaction_isolation')

-- The first statement of every engine transaction (a batch read, a completion, a lease's renewal,
-- a heartbeat): a wait for a lock, such as the lease row behind an operator's repair or an
-- application's transaction that stays open, fails after :timeout milliseconds (one lease ttl)
-- instead of lasting as long as the other transaction; the worker tries again at its next poll.
-- name: ENGINE_LOCK_TIMEOUT
select set_config('lock_timeout', :timeout, true)

-- The batch read's transaction commits without waiting for its WAL to reach the disk (ADR 0015).
-- What it writes (the lease row's lock, promoted retries, held or released rows) is done again by
-- the next read if a crash of the database loses it, and a later transaction that flushes (the
-- batch's completion, any publish) flushes it first: the WAL is one sequence.
-- name: READ_COMMITS_UNFLUSHED
select set_config('synchronous_commit', 'off', true)

-- The worker's transactions plan each statement on outboxer_message for its parameters, by index,
-- whatever the table's statistics say (ADR 0017). A server-side prepared statement may otherwise
-- run on a generic plan once it ran five times, kept until the statistics change; and statistics
-- taken while the outbox was idle (analyzed empty after a drain, its pages kept) make the planner
-- count a later burst as a row or two: it then deleted or held a batch by a sequential scan that
-- compared every row with the batch's 2,000 ids (13 s at 200,000 rows), and read a batch by the
-- primary key and a sort of the partition's whole backlog. Every statement below has an index
-- that gives its rows, and its order where it has one: without sequential scans and sorts, the
-- planner takes it whatever it estimates. The statements on the lease and the lock table run
-- before this one and keep their plans. plan_cache_mode needs PostgreSQL 12 or later.
-- name: PLAN_BY_INDEX
select set_config('plan_cache_mode', 'force_custom_plan', true),
       set_config('enable_seqscan', 'off', true),
       set_config('enable_sort', 'off', true)

-- Whether outboxer_message changed by far more rows since its statistics were taken than they
-- count (1), and this session may take them again (its user owns the table): an outbox analyzed
-- while idle makes the planner count a later burst as no row at all, which prices a walk of any
-- index as nothing, and then a batch's delete walked the backlog against its 2,000 ids (20 s at
-- 200,000 rows; ADR 0017). Autovacuum takes them again in time where it runs; the engine does
-- after a full batch read and at each heartbeat.
-- name: STATISTICS_STALE
select cast(coalesce(s.n_mod_since_analyze > greatest(10000, 2 * c.reltuples)
                     and pg_has_role(c.relowner, 'MEMBER'), false) as integer)
  from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
 where c.oid = cast('outboxer_message' as regclass)

-- The turn to take them again: waits for a transaction of any server that has it, which then
-- took them, and forgets the statistics counters this transaction read before, so that
-- STATISTICS_STALE looks again. The lock's key is SCHEMA_LOCK's (below) plus one, of the same
-- bigint form. ANALYZE_OUTBOX after it samples 3,000 rows rather than 30,000 (a statistics target
-- of 10 for this transaction): 19 ms against 230 ms at 200,000 rows, while a batch waits for it;
-- the count of rows, which decides the plans here, comes out as close, and autovacuum's next
-- analyze takes the full sample again.
-- name: STATISTICS_TURN
select pg_advisory_xact_lock(8031453476610925939), pg_stat_clear_snapshot(),
       set_config('default_statistics_target', '10', true)

-- name: ANALYZE_OUTBOX
analyze outboxer_message

-- name: PROMOTE_DUE
update outboxer_message set state = 0
 where outbox = :outbox and partition_no = :partition and state = 3
   and next_attempt_at <= (extract(epoch from now()) * 1000)::bigint

-- name: HEAD_WAITS
select id from outboxer_message
 where outbox = :outbox and partition_no = :partition and state = 3 limit 1

-- Below :bound only: ids at and above it may still have a lower id in flight (ADR 0010).
-- name: READ_READY
select id, group_key, message_type, payload, attempts, trace_parent from outboxer_message
 where outbox = :outbox and partition_no = :partition and state < 1 and id < :bound
 order by state, id limit :limit

-- READ_READY from :from on, where the worker knows that no row below it is ready (ADR 0014). The
-- row comparison positions the index scan at (0, :from), past the entries of the rows deleted
-- below it, which a long transaction elsewhere keeps in the index.
-- name: READ_READY_FROM
select id, group_key, message_type, payload, attempts, trace_parent from outboxer_message
 where outbox = :outbox and partition_no = :partition and state < 1 and (state, id) >= (0, :from)
   and id < :bound
 order by state, id limit :limit

-- READ_READY_FROM without the rows of the groups :groups (a JSON array of keys), all of whose rows
-- from :from on are blocked (ADR 0016): one statement reads past a blocked group's backlog to the
-- rows behind it. The array is unpacked once, not per row.
-- name: READ_READY_PAST_BLOCKED
select id, group_key, message_type, payload, attempts, trace_parent from outboxer_message
 where outbox = :outbox and partition_no = :partition and state < 1 and (state, id) >= (0, :from)
   and id < :bound
   and (group_key is null
        or group_key <> all(array(select jsonb_array_elements_text(cast(:groups as jsonb)))))
 order by state, id limit :limit

-- Whether a group of the partition is blocked (1) or not (0): a retrying head or a held row, two
-- index probes. Only the partition's lease holder makes a head wait (in a completion) or holds rows
-- (in a batch read, those of a blocked group), and an operator's repair waits for the lease row
-- that a batch read locks first: a partition without a blocked group has none until the read's
-- transaction ends, whose reads then skip BLOCKED_FROM and its list of a thousand group keys.
-- name: PARTITION_BLOCKED
select cast(exists (select 1 from outboxer_message m
                     where m.outbox = :outbox and m.partition_no = :partition and m.state = 3)
         or exists (select 1 from outboxer_message m
                     where m.outbox = :outbox and m.partition_no = :partition and m.state = 1)
            as integer)

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
  from jsonb_array_elements_text(cast(:groups as jsonb)) as k(g)

-- The id list is read in a sub-select, evaluated once at execution. Planned for its parameters (ADR
-- 0017), the list as an expression would be folded into a constant array and each of a batch's
-- thousand elements estimated: 0.4 to 0.6 ms of planning against 0.16. The plan is the same index
-- scan of the primary key.
-- name: HOLD_ROWS
update outboxer_message set state = 1
 where state = 0 and id = any(cast((select translate(:ids, '[]', '{}')) as bigint[]))

-- name: FENCE
update outboxer_lease set epoch = epoch
 where outbox = :outbox and partition_no = :partition and owner = :owner and epoch = :epoch
   and expires_at > (extract(epoch from now()) * 1000)::bigint

-- FENCE for a batch read that starts past its last batch (ADR 0014): it also returns the
-- partition's repair count, read under the row lock it takes.
-- name: READ_FENCE
update outboxer_lease set epoch = epoch
 where outbox = :outbox and partition_no = :partition and owner = :owner and epoch = :epoch
   and expires_at > (extract(epoch from now()) * 1000)::bigint
returning repairs

-- As HOLD_ROWS, the id list in a sub-select.
-- name: DELETE_ROWS
delete from outboxer_message
 where state = 0 and id = any(cast((select translate(:ids, '[]', '{}')) as bigint[]))

-- name: FAIL_DEAD
update outboxer_message
   set attempts = attempts + 1, last_error = :error, state = 2,
       last_attempt_at = (extract(epoch from now()) * 1000)::bigint
 where id = :id and state = 0

-- name: FAIL_RETRY
update outboxer_message
   set attempts = attempts + 1, last_error = :error, state = 3,
       last_attempt_at = (extract(epoch from now()) * 1000)::bigint,
       next_attempt_at = (extract(epoch from now()) * 1000)::bigint + :delay
 where id = :id and state = 0

-- name: RELEASE_GROUP
update outboxer_message set state = 0
 where outbox = :outbox and partition_no = :partition and group_key = :group and state = 1

-- name: RELEASE_OUTBOX_HELD
update outboxer_message set state = 0 where outbox = :outbox and state = 1

-- An operator's repair (ADR 0014), its first statement: it waits for a batch read or completion of
-- the partition, which hold the lease's row too, so that what the repair then reads of its rows is
-- what that batch left, and tells the partition's worker to read from the first row.
-- name: MARK_REPAIR_OF_MESSAGE
update outboxer_lease set repairs = repairs + 1
 where outbox = :outbox
   and partition_no = (select partition_no from outboxer_message where outbox = :outbox and id = :id)

-- The partition a group's rows are hashed to (one lease row: no scan of the outbox's rows). Below,
-- MARK_REPAIR_ALL locks every partition's lease row in partition order, so that two repairs of one
-- outbox never wait in a circle.
-- name: MARK_REPAIR_OF_PARTITION
update outboxer_lease set repairs = repairs + 1
 where outbox = :outbox and partition_no = :partition

-- name: MARK_REPAIR_ALL
update outboxer_lease set repairs = repairs + 1
 where (outbox, partition_no) in (select outbox, partition_no from outboxer_lease
                                   where outbox = :outbox order by partition_no for update)

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

-- A lease is taken and renewed by the clock when the statement runs, not when its transaction
-- began (now()): a renewal that waited for the lease row behind a long repair must not pass on a
-- lease that expired meanwhile, nor date its new expiry from before the wait.
-- name: ACQUIRE_LEASE
update outboxer_lease
   set owner = :owner, epoch = epoch + 1,
       expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + :ttl
 where outbox = :outbox and partition_no = :partition
   and (owner is null or expires_at <= (extract(epoch from now()) * 1000)::bigint)

-- name: LEASE_EPOCH
select epoch from outboxer_lease where outbox = :outbox and partition_no = :partition

-- name: RENEW_LEASE
update outboxer_lease set expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + :ttl
 where outbox = :outbox and partition_no = :partition and owner = :owner and epoch = :epoch
   and expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint

-- name: RELEASE_LEASE
update outboxer_lease set owner = null, expires_at = 0
 where outbox = :outbox and partition_no = :partition and owner = :owner and epoch = :epoch
   and expires_at > (extract(epoch from now()) * 1000)::bigint

-- name: HEARTBEAT
insert into outboxer_node (outbox, node_id, heartbeat_at)
values (:outbox, :node, (extract(epoch from now()) * 1000)::bigint)
on conflict (outbox, node_id) do update set heartbeat_at = excluded.heartbeat_at

-- name: FORGET_NODES
delete from outboxer_node
 where outbox = :outbox and heartbeat_at < (extract(epoch from now()) * 1000)::bigint - :forget

-- The servers other than :node that delivered the outbox within :ttl.
-- name: COUNT_OTHER_NODES
select count(*) from outboxer_node
 where outbox = :outbox and node_id <> :node and heartbeat_at > (extract(epoch from now()) * 1000)::bigint - :ttl

-- name: COUNT_NODES
select count(*) from outboxer_node
 where outbox = :outbox and heartbeat_at > (extract(epoch from now()) * 1000)::bigint - :ttl

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
   set state = 0, attempts = 0, next_attempt_at = (extract(epoch from now()) * 1000)::bigint
 where outbox = :outbox and state = 2

-- name: REVIVE_DEAD
update outboxer_message
   set state = 0, attempts = 0, next_attempt_at = (extract(epoch from now()) * 1000)::bigint
 where outbox = :outbox and state = 2 and id = :id

-- name: DELETE_MESSAGE
delete from outboxer_message where id = :id

-- name: REVIVE_DEAD_GROUP
update outboxer_message
   set state = 0, attempts = 0, next_attempt_at = (extract(epoch from now()) * 1000)::bigint
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

-- A failing head of the group: waiting for its retry time, or due again. One probe of each state's
-- index by group; as one condition with "or", the planner may walk the partition's whole backlog.
-- name: GROUP_FAILING
select id from (select id from outboxer_message
                 where outbox = :outbox and partition_no = :partition and group_key = :group
                   and state = 3
                union all
                select id from outboxer_message
                 where outbox = :outbox and partition_no = :partition and group_key = :group
                   and state = 0 and attempts > 0) f
 limit 1

-- name: RETRY_GROUP_NOW
update outboxer_message set state = 0, next_attempt_at = (extract(epoch from now()) * 1000)::bigint
 where outbox = :outbox and partition_no = :partition and group_key = :group and state = 3

-- Servers that start together on one database apply the schema in turns: an identical
-- "create … if not exists" in flight makes PostgreSQL's fail. A session lock, released after the
-- script (a connection whose release fails is aborted, ending its session and the lock), held
-- across statements that each commit on their own, so that no transaction keeps table locks while
-- it waits for another. Its key is of the bigint form, which the two-integer keys above never
-- meet: the word 'outboxer' as eight bytes, which GROUP_LOCK's hashed keys meet once in 2^64.

-- name: SCHEMA_LOCK
select pg_advisory_lock(8031453476610925938)

-- name: SCHEMA_UNLOCK
select pg_advisory_unlock(8031453476610925938)

-- name: ADD_TRACE_PARENT
alter table outboxer_message add column if not exists trace_parent varchar(55)

-- name: ADD_LEASE_REPAIRS
alter table outboxer_lease add column if not exists repairs bigint not null default 0

-- name: ADD_OUTBOX_TERMS
alter table outboxer_outbox add column if not exists terms varchar(500)

-- name: BACKLOG
select outbox,
       count(*) filter (where state <> 2) as pending,
       count(*) filter (where state = 2) as dead,
       min(created_at) filter (where state <> 2) as oldest_created_at,
       count(distinct group_key) filter (where state = 3 or (state = 0 and attempts > 0))
         as failing_groups,
       (extract(epoch from now()) * 1000)::bigint as now_millis
  from outboxer_message group by outbox

-- name: INBOX_CLAIM
insert into outboxer_inbox (outbox, group_key, last_id) values (:outbox, :group, :id)
on conflict (outbox, group_key) do update set last_id = excluded.last_id
 where outboxer_inbox.last_id < excluded.last_id
