// Platform migration 200: the login roles the platform itself uses inside each project's database
// (the SQL and migration endpoints, the type generator, the advisors). Their passwords are
// random and never shown; a project's row goes with the project.
export default {
  version: 200,
  name: "project_logins",
  sql: `
create table platform.project_logins (
  ref text primary key references platform.projects (ref) on delete cascade,
  -- logs in without privileges of its own and acts as the project's owner role
  owner_login text not null,
  owner_password text not null,
  -- reads everything, writes nothing
  read_only_login text not null,
  read_only_password text not null
);
`,
};
