// Platform migration 304: per-project SSL enforcement and the pgsodium root key kept for it.
export default {
  version: 304,
  name: "database_options",
  sql: `
create table platform.project_database_options (
  ref text primary key references platform.projects (ref) on delete cascade,
  ssl_enforced boolean not null default false,
  pgsodium_root_key text
);
`,
};
