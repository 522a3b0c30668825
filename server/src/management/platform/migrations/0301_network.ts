// Platform migration 301: each project's network restrictions (the CIDRs allowed to reach its
// data API and, on servers whose pg_hba.conf the platform manages, its database).
export default {
  version: 301,
  name: "network",
  sql: `
create table platform.network_restrictions (
  ref text primary key references platform.projects (ref) on delete cascade,
  allowed_v4 text[] not null,
  allowed_v6 text[] not null,
  old_v4 text[],
  old_v6 text[],
  -- 'applied' once the data API and the database (where managed) enforce it
  status text not null check (status in ('stored', 'applied')),
  updated_at timestamptz not null default now(),
  applied_at timestamptz
);
`,
};
