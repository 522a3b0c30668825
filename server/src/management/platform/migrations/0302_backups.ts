// Platform migration 302: logical backups (pg_dump custom format, kept in the platform database)
// of each project's database, named ones being restore points, and the daily schedule.
export default {
  version: 302,
  name: "backups",
  sql: `
create table platform.backups (
  id bigint generated always as identity primary key,
  ref text not null references platform.projects (ref) on delete cascade,
  -- 'scheduled', 'on_demand' (taken before a restore, so it can be undone) or 'restore_point'
  kind text not null,
  name text,
  status text not null check (status in ('PENDING', 'COMPLETED', 'FAILED')),
  dump bytea,
  error text,
  inserted_at timestamptz not null,
  completed_at timestamptz
);
create index on platform.backups (ref, inserted_at);

create table platform.backup_schedules (
  ref text primary key references platform.projects (ref) on delete cascade,
  schedule_for time not null,
  updated_at timestamptz not null default now()
);
`,
};
