// Platform migration 300: each project's data API settings and read-only mode state, and the
// temporary login roles made for it (so they can be dropped when their time is up).
export default {
  version: 300,
  name: "settings",
  sql: `
create table platform.project_settings (
  ref text primary key references platform.projects (ref) on delete cascade,
  -- exposed schemas, comma-separated, then the schemas only added to the search path
  db_schema text not null default 'public',
  db_extra_search_path text not null default '',
  -- null: the server's own pool size
  db_pool integer check (db_pool >= 1),
  -- read-only mode as last measured (database size against the quota), and its override
  readonly_enabled boolean not null default false,
  readonly_override_until timestamptz,
  -- whether default_transaction_read_only is set on the project's database now
  readonly_applied boolean not null default false,
  updated_at timestamptz not null default now()
);

create table platform.login_roles (
  role_name text primary key,
  -- no foreign key: a role outlives its project's record until the sweep drops it
  ref text not null,
  server text not null,
  read_only boolean not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index on platform.login_roles (ref);
create index on platform.login_roles (expires_at);
`,
};
