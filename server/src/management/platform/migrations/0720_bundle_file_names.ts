// Platform migration 720: bundle file names made relative, as deploys now store them. Earlier
// deploys could store an absolute name (`/etc/passwd`), one with a drive letter (`C:/x.ts`) or
// with `.` and empty segments, and the download handed them back for a client to write out.
// Each such name is rewritten as `bundleFileName` would store it (drive letter, leading slashes,
// `.` and empty segments dropped; `..` was always refused); when two names of a bundle become
// one, the one that was already relative is kept. Entrypoint and import map paths naming a
// renamed file follow it, and the bundle's SHA-256 is computed again over the stored files as
// `bundleSha256` does (files in byte order of their names, which is the code's order for any
// name without characters beyond U+FFFF).
export default {
  version: 720,
  name: "bundle_file_names",
  sql: `
create temporary table bundle_file_names on commit drop as
select ff.function_id, ff.path,
  array_to_string(array(
    select segment from unnest(string_to_array(regexp_replace(ff.path, '^[A-Za-z]:', ''), '/')) with ordinality as s(segment, n)
    where segment not in ('', '.') order by n), '/') as name
from platform.function_files ff
join platform.functions f on f.id = ff.function_id and f.bundle_kind = 'files';

delete from platform.function_files ff
using (
  select function_id, path, name,
    row_number() over (partition by function_id, name order by path = name desc, convert_to(path, 'UTF8')) as rank
  from bundle_file_names
) n
where ff.function_id = n.function_id and ff.path = n.path and (n.name = '' or n.rank > 1);

update platform.function_files ff set path = n.name
from bundle_file_names n
where ff.function_id = n.function_id and ff.path = n.path and n.name <> n.path;

update platform.functions f set entrypoint_path = n.name
from bundle_file_names n
where n.function_id = f.id and n.path = f.entrypoint_path and n.name <> n.path and n.name <> '';

update platform.functions f set import_map_path = n.name
from bundle_file_names n
where n.function_id = f.id and n.path = f.import_map_path and n.name <> n.path and n.name <> '';

update platform.functions f set ezbr_sha256 = (
  select encode(sha256(coalesce(string_agg(
    convert_to(ff.path, 'UTF8') || '\\x00'::bytea || convert_to(length(ff.content)::text, 'UTF8') || '\\x00'::bytea || ff.content,
    ''::bytea order by convert_to(ff.path, 'UTF8')), ''::bytea)), 'hex')
  from platform.function_files ff where ff.function_id = f.id)
where f.id in (select function_id from bundle_file_names where name <> path);
`,
};
