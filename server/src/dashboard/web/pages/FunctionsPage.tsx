// Functions page (`#/project/<ref>/functions`): the project's stored function bundles (slug,
// name, status, version, JWT check, last update). This server keeps and versions them for the
// supabase CLI (`functions deploy --use-api`); it does not run them, and the page says so.
import { useProjectResource } from "../api/queries";
import type { EdgeFunction, Project } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { DataTable, type ColumnSpec } from "../widgets/DataTable";
import { localTime } from "../widgets/dates";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";

const columns: ColumnSpec<EdgeFunction>[] = [
  { id: "slug", header: "Slug", value: (f) => f.slug, render: (f) => <code>{f.slug}</code> },
  { id: "name", header: "Name", value: (f) => f.name },
  { id: "status", header: "Status", value: (f) => f.status },
  { id: "version", header: "Version", value: (f) => f.version, numeric: true },
  { id: "jwt", header: "Checks JWT", value: (f) => (f.verify_jwt === undefined ? null : f.verify_jwt ? "yes" : "no") },
  { id: "updated", header: "Updated", value: (f) => Number(new Date(f.updated_at)), numeric: true, render: (f) => localTime(f.updated_at) },
];

export function FunctionsPage({ project }: { project: Project }) {
  const functions = useProjectResource<EdgeFunction[]>(project.ref, "/functions");
  return (
    <section>
      <PageTitle title={`${project.name} · Functions`}>Functions</PageTitle>
      <p className="hint">
        Bundles deployed with <code>supabase functions deploy NAME --use-api --remote={project.ref}</code> are stored and versioned here; this server does
        not run them.
      </p>
      {functions.isPending && <Progress label="Reading the functions" />}
      {functions.error && <ErrorNotice error={functions.error} onRetry={() => functions.refetch()} />}
      {functions.data && <DataTable caption="Functions" columns={columns} rows={functions.data} empty="No function deployed." />}
    </section>
  );
}
