// Platform migration 1: users and their access tokens, organizations and members, projects, and
// the per-user rate limit counters shared by every server process.
export default {
  version: 1,
  name: "platform",
  sql: `
-- Only the roles it is granted to may connect to the platform database (when the migrating role
-- may change that; a database it was given ready-made may be locked down by its owner instead).
do $$ begin
  execute format('revoke connect, temporary on database %I from public', current_database());
exception when insufficient_privilege then null; end $$;

create schema platform;

create table platform.users (
  id uuid primary key default gen_random_uuid(),
  email text not null unique,
  username text not null,
  created_at timestamptz not null default now()
);

create table platform.access_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references platform.users on delete cascade,
  -- sha-256 of the token, hex: the token itself is shown once and never stored
  token_hash text not null unique,
  name text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);

create table platform.organizations (
  slug text primary key,
  name text not null,
  plan text not null default 'free',
  created_at timestamptz not null default now()
);

create table platform.organization_members (
  organization_slug text not null references platform.organizations on delete cascade,
  user_id uuid not null references platform.users on delete cascade,
  role_name text not null,
  created_at timestamptz not null default now(),
  primary key (organization_slug, user_id)
);
create index on platform.organization_members (user_id);

create table platform.projects (
  id bigint generated always as identity primary key,
  ref text not null unique check (ref ~ '^[a-z]{20}$'),
  organization_slug text not null references platform.organizations,
  name text not null,
  region text not null,
  -- COMING_UP while made, ACTIVE_HEALTHY, INACTIVE (paused), GOING_DOWN while deleted
  status text not null,
  -- the project server, as host:port (credentials stay in the configuration)
  server text not null,
  database_name text not null,
  owner_role text not null,
  authenticator_role text not null,
  authenticator_password text not null,
  jwt_secret text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index on platform.projects (organization_slug);
create index on platform.projects (server);

create table platform.rate_limit_counts (
  user_id uuid not null,
  minute bigint not null,
  count integer not null,
  primary key (user_id, minute)
);

create table platform.rate_limit_blocks (
  user_id uuid primary key,
  blocked_through bigint not null
);

-- One call: counts it in its minute and says whether it may go on. The first call over the
-- limit in minute M blocks the user through minute M+1. The counter row's lock orders
-- concurrent calls from any process, so the count is exact at the boundary.
create function platform.rate_limit_take(p_user uuid, p_minute bigint, p_limit integer)
returns table (allowed boolean, used integer, blocked_through bigint)
language plpgsql as $$
declare
  n integer;
  b bigint;
begin
  insert into platform.rate_limit_counts as c (user_id, minute, count) values (p_user, p_minute, 1)
  on conflict (user_id, minute) do update set count = c.count + 1
  returning c.count into n;
  if n = 1 then
    delete from platform.rate_limit_counts c where c.user_id = p_user and c.minute < p_minute;
  end if;
  select r.blocked_through into b from platform.rate_limit_blocks r where r.user_id = p_user;
  if b is not null and b >= p_minute then
    return query select false, n, b;
  elsif n > p_limit then
    insert into platform.rate_limit_blocks as r (user_id, blocked_through) values (p_user, p_minute + 1)
    on conflict (user_id) do update set blocked_through = excluded.blocked_through;
    return query select false, n, p_minute + 1;
  else
    return query select true, n, null::bigint;
  end if;
end $$;
`,
};
