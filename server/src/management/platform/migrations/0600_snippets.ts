// Platform migration 600: SQL snippets, each owned by a user and attached to one project; users
// get the numeric id the document's snippet owners carry.
export default {
  version: 600,
  name: "snippets",
  sql: `
alter table platform.users add column number bigint generated always as identity unique;
create table platform.snippets (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null references platform.users (id) on delete cascade,
  project_ref text not null references platform.projects (ref) on delete cascade,
  name text not null check (length(name) between 1 and 256),
  description text,
  visibility text not null check (visibility in ('user', 'project', 'org', 'public')),
  favorite boolean not null default false,
  sql text not null,
  inserted_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);
create index snippets_owner on platform.snippets (owner_id, project_ref);
`,
};
