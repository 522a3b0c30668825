// Logs stage: the schema of the logs database. Requests live in `logs_internal.requests`, one
// typed column per field (no JSON to parse on the write path, which runs beside every request);
// other sources in `logs_internal.events`. Only the platform reads and writes them; the reader role
// sees the hosted source names as views in `logs`, each limited to the project and time range of
// the query ticket its session presents, edge_logs with its hosted `event_message` and `metadata`;
// and all of them as the one `logs` source of the newer dialect (a `source` column, attributes as
// a flat map).
import type { Migration } from "../platform/migrations/index";

/** The sources of the logs database's first version (its views are made from this list). */
const firstSources = [
  "edge_logs",
  "postgres_logs",
  "function_logs",
  "function_edge_logs",
  "auth_logs",
  "auth_audit_logs",
  "realtime_logs",
  "storage_logs",
  "postgrest_logs",
  "supavisor_logs",
  "pgbouncer_logs",
  "pg_cron_logs",
  "pg_upgrade_logs",
] as const;

/** The hosted log sources: edge_logs (requests) and workflow_run_logs (branch action runs) are
 * written here; nothing writes the others, so they are empty. */
export const logSources = [...firstSources, "workflow_run_logs"] as const;
export type LogSource = (typeof logSources)[number];

/** What the reader role may select: every source, and `logs` over all of them. */
export const logViews = [...logSources, "logs"] as const;

function sourceView(source: LogSource): string {
  return `create view logs.${source} with (security_barrier) as
  select e.id, e.timestamp, e.event_message, e.metadata from logs_internal.events e, logs.ticket() t
  where e.source = '${source}' and e.project_ref = t.project_ref and e.timestamp >= t.starts and e.timestamp < t.ends;`;
}

// Each source's rows in the newer dialect, attributes as a flat map with dotted keys and the
// project's ref as their identifier. Requests are read from their typed columns (built per row,
// with no JSON to take apart); the other sources' metadata is flattened, and their severity is
// the row's level. The same ticket (project and range) limits every branch.
const edgeLogsUnified = `  select r.id, r.timestamp,
         r.method || ' | ' || r.status_code || ' | ' || r.client_ip || ' | ' || r.request_id || ' | ' || r.path as event_message,
         case when r.status_code >= 500 then 'ERROR' when r.status_code >= 400 then 'WARN' else 'INFO' end as severity_text,
         'edge_logs'::text as source,
         jsonb_strip_nulls(jsonb_build_object(
           'identifier', r.project_ref, 'api', r.api, 'request.method', r.method, 'request.path', r.path, 'request.host', r.host,
           'request.id', r.request_id, 'response.status_code', r.status_code, 'duration_ms', r.duration_ms, 'role', r.role)) as log_attributes
    from logs_internal.requests r, logs.ticket() t
   where r.project_ref = t.project_ref and r.timestamp >= t.starts and r.timestamp < t.ends`;

const eventLogsUnified = logSources
  .filter((source) => source !== "edge_logs")
  .map(
    (source) => `  select s.id, s.timestamp, s.event_message,
         upper(coalesce(s.metadata ->> 'level', s.metadata #>> '{parsed,error_severity}', 'info')) as severity_text,
         '${source}'::text as source,
         jsonb_build_object('identifier', t.project_ref) || logs_internal.flat_attributes(s.metadata) as log_attributes
    from logs.${source} s, logs.ticket() t`,
  );

const unifiedLogs = [edgeLogsUnified, ...eventLogsUnified].join("\n  union all\n");

const views = firstSources.map(sourceView).join("\n");

export const logsMigrations: Migration[] = [
  {
    version: 1,
    name: "logs",
    sql: `
create schema logs_internal;
create table logs_internal.events (
  id uuid not null default gen_random_uuid(),
  source text not null,
  project_ref text not null,
  timestamp timestamptz not null,
  event_message text not null,
  metadata jsonb not null
);
create index on logs_internal.events (project_ref, source, timestamp);

-- One row per logs query in flight: the project and range it may read, under a random id.
create table logs_internal.tickets (
  id text primary key,
  project_ref text not null,
  starts timestamptz not null,
  ends timestamptz not null,
  created_at timestamptz not null default now()
);

-- The reader role's password, made once and kept here (only the platform reads it).
create table logs_internal.reader (password text not null);

create schema logs;
create function logs.ticket() returns table (project_ref text, starts timestamptz, ends timestamptz)
language sql stable security definer set search_path = pg_catalog as $$
  select t.project_ref, t.starts, t.ends from logs_internal.tickets t where t.id = current_setting('logs.ticket', true)
$$;
${views}
revoke all on schema public from public;
revoke all on function logs.ticket() from public;
`,
  },
  {
    version: 2,
    name: "requests",
    sql: `
create table logs_internal.requests (
  id uuid not null default gen_random_uuid(),
  project_ref text not null,
  timestamp timestamptz not null,
  api text not null,
  method text not null,
  path text not null,
  host text not null,
  request_id text not null,
  client_ip text not null,
  status_code int not null,
  duration_ms float8 not null,
  role text
);
create index on logs_internal.requests (project_ref, timestamp);

insert into logs_internal.requests
  (id, project_ref, timestamp, api, method, path, host, request_id, client_ip, status_code, duration_ms, role)
select id, project_ref, timestamp, metadata->>'api', metadata->'request'->>'method', metadata->'request'->>'path',
       metadata->'request'->>'host', metadata->'request'->>'id', split_part(event_message, ' | ', 3),
       (metadata->'response'->>'status_code')::int, (metadata->>'duration_ms')::float8, metadata->>'role'
  from logs_internal.events where source = 'edge_logs';
delete from logs_internal.events where source = 'edge_logs';

create or replace view logs.edge_logs with (security_barrier) as
  select r.id, r.timestamp,
         r.method || ' | ' || r.status_code || ' | ' || r.client_ip || ' | ' || r.request_id || ' | ' || r.path as event_message,
         jsonb_build_object(
           'api', r.api,
           'request', jsonb_build_object('method', r.method, 'path', r.path, 'host', r.host, 'id', r.request_id),
           'response', jsonb_build_object('status_code', r.status_code),
           'duration_ms', r.duration_ms,
           'role', r.role
         ) as metadata
    from logs_internal.requests r, logs.ticket() t
   where r.project_ref = t.project_ref and r.timestamp >= t.starts and r.timestamp < t.ends;
`,
  },
  {
    version: 3,
    name: "unified_logs",
    sql: `
${sourceView("workflow_run_logs")}

-- {"request": {"method": "GET"}} → {"request.method": "GET"}; nulls are left out.
create function logs_internal.flat_attributes(metadata jsonb) returns jsonb
language sql immutable set search_path = pg_catalog as $$
  with recursive walk (key, value) as (
    select e.key, e.value from jsonb_each(metadata) e
    union all
    select w.key || '.' || e.key, e.value
      from walk w, jsonb_each(case when jsonb_typeof(w.value) = 'object' then w.value else '{}' end) e
  )
  select coalesce(jsonb_object_agg(key, value), '{}') from walk where jsonb_typeof(value) not in ('object', 'null')
$$;

-- A ticket names one row (its id is the key): plan with that, not the default thousand.
alter function logs.ticket() rows 1;

create view logs.logs with (security_barrier) as
${unifiedLogs};
`,
  },
];
