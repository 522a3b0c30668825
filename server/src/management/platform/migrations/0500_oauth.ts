// Platform migration 500: OAuth apps registered for an organization, their authorization codes
// and tokens (kept only as sha-256 hashes), and the consent page's sign-in sessions.
export default {
  version: 500,
  name: "oauth",
  sql: `
create table platform.oauth_apps (
  client_id uuid primary key default gen_random_uuid(),
  organization_slug text not null references platform.organizations on delete cascade,
  name text not null,
  client_secret_hash text not null,
  redirect_uris text[] not null,
  scopes text[] not null,
  created_at timestamptz not null default now()
);

create table platform.oauth_codes (
  code_hash text primary key,
  client_id uuid not null references platform.oauth_apps on delete cascade,
  user_id uuid not null references platform.users on delete cascade,
  organization_slug text not null references platform.organizations on delete cascade,
  scopes text[] not null,
  redirect_uri text not null,
  code_challenge text,
  code_challenge_method text,
  expires_at timestamptz not null
);

create table platform.oauth_tokens (
  id uuid primary key default gen_random_uuid(),
  client_id uuid not null references platform.oauth_apps on delete cascade,
  user_id uuid not null references platform.users on delete cascade,
  organization_slug text not null references platform.organizations on delete cascade,
  scopes text[] not null,
  access_token_hash text not null unique,
  access_expires_at timestamptz not null,
  refresh_token_hash text not null unique,
  refresh_expires_at timestamptz not null,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index on platform.oauth_tokens (client_id, user_id);

create table platform.oauth_sessions (
  id_hash text primary key,
  user_id uuid not null references platform.users on delete cascade,
  expires_at timestamptz not null
);
`,
};
