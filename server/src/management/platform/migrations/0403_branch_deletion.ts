// Platform migration 403: a branch's deletion scheduled for later (the grace period in which it
// can be restored, its database closed meanwhile), and the branches whose grace period ended,
// kept so a late restore can say what became of them.
export default {
  version: 403,
  name: "branch_deletion",
  sql: `
alter table platform.branches
  add column deletion_scheduled_at timestamptz,
  -- whether scheduling the deletion closed the database (a paused branch stays paused on restore)
  add column closed_for_deletion boolean not null default false;

create table platform.purged_branches (
  branch_ref text primary key,
  id uuid not null,
  name text not null,
  parent_ref text not null,
  purged_at timestamptz not null
);
`,
};
