// Platform migration 502: a project's custom hostname (its verification state) and vanity
// subdomain, unique across every project.
export default {
  version: 502,
  name: "domains",
  sql: `
create table platform.project_domains (
  project_ref text primary key references platform.projects (ref) on delete cascade,
  custom_hostname text,
  hostname_status text not null default '1_not_started',
  verification_token text,
  vanity_subdomain text unique,
  updated_at timestamptz not null default now()
);
`,
};
