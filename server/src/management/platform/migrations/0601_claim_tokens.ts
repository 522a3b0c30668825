// Platform migration 601: a project's claim token (at most one, kept as its sha-256).
export default {
  version: 601,
  name: "claim_tokens",
  sql: `
create table platform.claim_tokens (
  project_ref text primary key references platform.projects (ref) on delete cascade,
  token_hash text not null unique,
  token_alias text not null,
  created_by uuid not null references platform.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
`,
};
