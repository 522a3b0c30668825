// Platform migration 401: a project's functions and their bundles, kept byte for byte: the files
// of a multipart deploy, or one eszip body.
export default {
  version: 401,
  name: "functions",
  sql: `
create table platform.functions (
  id uuid primary key default gen_random_uuid(),
  project_ref text not null references platform.projects (ref) on delete cascade,
  slug text not null,
  name text not null,
  status text not null default 'ACTIVE',
  version integer not null default 1,
  verify_jwt boolean not null default true,
  import_map boolean not null default false,
  entrypoint_path text not null,
  import_map_path text,
  static_patterns text[] not null default '{}',
  -- files: the deployed source files; eszip: one bundle as uploaded
  bundle_kind text not null check (bundle_kind in ('files', 'eszip')),
  ezbr_sha256 text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (project_ref, slug)
);

create table platform.function_files (
  function_id uuid not null references platform.functions on delete cascade,
  path text not null,
  content bytea not null,
  primary key (function_id, path)
);
`,
};
