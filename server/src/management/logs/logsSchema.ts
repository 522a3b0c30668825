// Logs stage: the schema of the logs database. Rows live in `logs_internal.events`, which only
// the platform reads and writes; the reader role sees the hosted source names as views in `logs`,
// each limited to the project and time range of the query ticket its session presents.
import type { Migration } from "../platform/migrations/index";

/** The hosted log sources; nothing here writes the ones other than edge_logs, so they are empty. */
export const logSources = [
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
export type LogSource = (typeof logSources)[number];

const views = logSources
  .map(
    (source) => `create view logs.${source} with (security_barrier) as
  select e.id, e.timestamp, e.event_message, e.metadata from logs_internal.events e, logs.ticket() t
  where e.source = '${source}' and e.project_ref = t.project_ref and e.timestamp >= t.starts and e.timestamp < t.ends;`,
  )
  .join("\n");

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
];
