-- Roles and helpers a hosted project has, applied by `pg-graphql-server setup` as a superuser.
-- Roles are cluster-wide: every statement tolerates a concurrent run creating the same role.

do $$ begin create role anon nologin noinherit;
exception when duplicate_object or unique_violation then null; end $$;

do $$ begin create role authenticated nologin noinherit;
exception when duplicate_object or unique_violation then null; end $$;

do $$ begin create role service_role nologin noinherit bypassrls;
exception when duplicate_object or unique_violation then null; end $$;

-- The server logs in as this role; it holds no privileges of its own and can only switch to the
-- three API roles (noinherit keeps their privileges from applying until it switches).
do $$ begin create role authenticator login noinherit nosuperuser nocreatedb nocreaterole;
exception when duplicate_object or unique_violation then null; end $$;

do $$ begin
  if not (select rolbypassrls from pg_roles where rolname = 'service_role') then
    alter role service_role bypassrls;
  end if;
end $$;

do $$ begin
  if not pg_has_role('authenticator', 'anon', 'member') then grant anon to authenticator; end if;
  if not pg_has_role('authenticator', 'authenticated', 'member') then grant authenticated to authenticator; end if;
  if not pg_has_role('authenticator', 'service_role', 'member') then grant service_role to authenticator; end if;
exception when unique_violation then null; end $$;

-- Claims helpers: the server sets request.jwt.claims (and request.jwt.claim.<name>) per request.
create schema if not exists auth;

create or replace function auth.jwt() returns jsonb
  language sql stable
  as $$ select coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb $$;

create or replace function auth.uid() returns uuid
  language sql stable
  as $$ select nullif(coalesce(nullif(current_setting('request.jwt.claim.sub', true), ''), auth.jwt() ->> 'sub'), '')::uuid $$;

create or replace function auth.role() returns text
  language sql stable
  as $$ select coalesce(nullif(current_setting('request.jwt.claim.role', true), ''), auth.jwt() ->> 'role') $$;

grant usage on schema auth to anon, authenticated, service_role;
grant execute on all functions in schema auth to anon, authenticated, service_role;

-- Access to `public` as hosted projects grant it; row level security narrows it per table.
grant usage on schema public to anon, authenticated, service_role;
grant all on all tables in schema public to anon, authenticated, service_role;
grant all on all routines in schema public to anon, authenticated, service_role;
grant all on all sequences in schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on routines to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
