// Platform migration 100: a project's API keys, signing keys, auth configuration, third-party
// auth integrations and SAML providers, and the key generation every server process reads per
// data API request (bumped by every change that alters who may call the project).
export default {
  version: 100,
  name: "keys",
  sql: `
create table platform.project_key_state (
  project_id bigint primary key references platform.projects on delete cascade,
  generation bigint not null default 0,
  legacy_api_keys_enabled boolean not null default true
);

create table platform.project_api_keys (
  id uuid primary key default gen_random_uuid(),
  project_id bigint not null references platform.projects on delete cascade,
  type text not null check (type in ('publishable', 'secret')),
  name text not null,
  description text,
  -- the key itself: secret keys are shown again on reveal, as hosted
  api_key text not null unique,
  secret_jwt_template jsonb,
  inserted_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  was_compromised boolean,
  deletion_reason text
);
create unique index on platform.project_api_keys (project_id, name) where deleted_at is null;

create table platform.signing_keys (
  id uuid primary key,
  project_id bigint not null references platform.projects on delete cascade,
  algorithm text not null check (algorithm in ('EdDSA', 'ES256', 'RS256', 'HS256')),
  status text not null check (status in ('in_use', 'previously_used', 'revoked', 'standby')),
  -- the project's JWT secret registered as a key
  legacy boolean not null default false,
  private_jwk jsonb not null,
  public_jwk jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index on platform.signing_keys (project_id);
create unique index on platform.signing_keys (project_id) where status = 'in_use';
create unique index on platform.signing_keys (project_id) where legacy;

create table platform.project_auth_config (
  project_id bigint primary key references platform.projects on delete cascade,
  -- only the fields ever set; the rest read as their defaults
  config jsonb not null default '{}'
);

create table platform.third_party_auth (
  id uuid primary key default gen_random_uuid(),
  project_id bigint not null references platform.projects on delete cascade,
  type text not null,
  oidc_issuer_url text,
  jwks_url text,
  custom_jwks jsonb,
  resolved_jwks jsonb,
  resolved_at timestamptz,
  resolve_error text,
  inserted_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index on platform.third_party_auth (project_id);

create table platform.sso_providers (
  id uuid primary key default gen_random_uuid(),
  project_id bigint not null references platform.projects on delete cascade,
  entity_id text not null,
  metadata_xml text not null,
  metadata_url text,
  certificates jsonb not null,
  attribute_mapping jsonb not null default '{"keys": {}}',
  name_id_format text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (project_id, entity_id)
);

create table platform.sso_domains (
  id uuid primary key default gen_random_uuid(),
  provider_id uuid not null references platform.sso_providers on delete cascade,
  project_id bigint not null references platform.projects on delete cascade,
  domain text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (project_id, domain)
);
`,
};
