// Platform migration 730: the projects whose migration history a branch replay or merge may have
// made as a superuser (every branch, and every parent of one), so the owner could not write it;
// start-up gives each one's history to its owner and removes it from the list.
export default {
  version: 730,
  name: "history_owner_fixes",
  sql: `
create table platform.history_owner_fixes (
  project_ref text primary key references platform.projects (ref) on delete cascade
);
insert into platform.history_owner_fixes (project_ref)
  select branch_ref from platform.branches union select parent_ref from platform.branches;
`,
};
