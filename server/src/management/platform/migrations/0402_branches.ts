// Platform migration 402: branches (each one a project of its own, made from its parent) and the
// action runs that report what was done to them (create, merge, reset), with their logs.
export default {
  version: 402,
  name: "branches",
  sql: `
create table platform.branches (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  parent_ref text not null references platform.projects (ref) on delete cascade,
  branch_ref text not null unique references platform.projects (ref) on delete cascade,
  git_branch text,
  persistent boolean not null default false,
  status text not null default 'CREATING_PROJECT',
  with_data boolean not null default false,
  -- the branch owner's password, answered by the branch config as hosted does
  db_pass text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (parent_ref, name)
);

create table platform.branch_action_runs (
  id uuid primary key default gen_random_uuid(),
  branch_id uuid not null references platform.branches on delete cascade,
  step text not null,
  status text not null,
  logs text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index on platform.branch_action_runs (branch_id, created_at);
`,
};
