// Platform migration 501: project upgrades, one row per requested upgrade, found by tracking id.
export default {
  version: 501,
  name: "upgrades",
  sql: `
create table platform.project_upgrades (
  tracking_id uuid primary key default gen_random_uuid(),
  project_ref text not null references platform.projects (ref) on delete cascade,
  target_version text not null,
  -- 1 while running, 2 done, 0 failed
  status integer not null,
  progress text not null,
  error text,
  error_detail text,
  initiated_at timestamptz not null default now(),
  latest_status_at timestamptz not null default now()
);
create index on platform.project_upgrades (project_ref, initiated_at);
`,
};
