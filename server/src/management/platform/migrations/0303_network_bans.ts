// Platform migration 303: addresses banned from a project's data API after repeated failed
// authentication, with the failures counted in the current window.
export default {
  version: 303,
  name: "network_bans",
  sql: `
create table platform.network_bans (
  ref text not null references platform.projects (ref) on delete cascade,
  address inet not null,
  failures integer not null,
  window_start timestamptz not null,
  banned_until timestamptz,
  primary key (ref, address)
);
`,
};
