// Platform migration 305: just-in-time role access — which database roles each organization
// member may take on a project, until when and from which networks — and whether it is enabled.
export default {
  version: 305,
  name: "jit_access",
  sql: `
create table platform.jit_grants (
  ref text not null references platform.projects (ref) on delete cascade,
  user_id uuid not null references platform.users on delete cascade,
  role text not null,
  -- seconds since the epoch; null: no expiry
  expires_at double precision,
  allowed_v4 text[] not null default '{}',
  allowed_v6 text[] not null default '{}',
  primary key (ref, user_id, role)
);

create table platform.jit_state (
  ref text primary key references platform.projects (ref) on delete cascade,
  enabled boolean not null
);
`,
};
