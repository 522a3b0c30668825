// Platform migration 503: per-project settings documents of services this server records but does
// not run (realtime, storage), one JSON document per project and kind.
export default {
  version: 503,
  name: "service_settings",
  sql: `
create table platform.service_settings (
  project_ref text not null references platform.projects (ref) on delete cascade,
  kind text not null,
  document jsonb not null,
  updated_at timestamptz not null default now(),
  primary key (project_ref, kind)
);
`,
};
