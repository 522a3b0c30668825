// Platform migration 400: project secrets, encrypted (AES-256-GCM) with the server's key; the
// digest is the SHA-256 of the value, which is all that reads ever answer.
export default {
  version: 400,
  name: "secrets",
  sql: `
create table platform.project_secrets (
  project_ref text not null references platform.projects (ref) on delete cascade,
  name text not null,
  iv bytea not null,
  ciphertext bytea not null,
  auth_tag bytea not null,
  digest text not null,
  updated_at timestamptz not null default now(),
  primary key (project_ref, name)
);
`,
};
