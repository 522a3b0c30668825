// Platform migration 306: daily backups past the kept number lose their dump and stay listed as
// REMOVED.
export default {
  version: 306,
  name: "backup_retention",
  sql: `
alter table platform.backups drop constraint backups_status_check;
alter table platform.backups add constraint backups_status_check check (status in ('PENDING', 'COMPLETED', 'FAILED', 'REMOVED'));
`,
};
