// SQL page: the project's migrations (`database/migrations`, the history the supabase CLI keeps)
// and applying the editor's text as a new one (its statements and its record in one transaction).
import { useId, useMemo, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/apiClient";
import { projectApi } from "../api/paths";
import { useProjectResource } from "../api/queries";
import type { Migration } from "../api/types";
import { DataTable, type ColumnSpec } from "../widgets/DataTable";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { Form } from "../widgets/Form";

export interface MigrationsPanelProps {
  projectRef: string;
  /** The editor's text, applied as the new migration. */
  text: string;
  onApplied(): void;
}

export function MigrationsPanel({ projectRef, text, onApplied }: MigrationsPanelProps) {
  const migrations = useProjectResource<Migration[]>(projectRef, "/database/migrations");
  const [name, setName] = useState("");
  const id = useId();
  const apply = useMutation({
    mutationFn: () => api.post(projectApi(projectRef, "/database/migrations"), { query: text, name: name.trim() }),
    onSuccess: () => {
      setName("");
      onApplied();
    },
  });
  const columns = useMemo<ColumnSpec<Migration>[]>(
    () => [
      { id: "version", header: "Version", value: (m) => m.version },
      { id: "name", header: "Name", value: (m) => m.name ?? null },
    ],
    [],
  );
  return (
    <section aria-labelledby="migrations-title">
      <h2 id="migrations-title">Migrations</h2>
      <Form
        className="inline-form"
        label="Apply as a migration"
        onSubmit={() => apply.mutate()}
      >
        <label htmlFor={id}>Migration name</label>
        <input id={id} value={name} onChange={(e) => setName(e.target.value)} required />
        <button type="submit" disabled={apply.isPending || name.trim() === "" || text.trim() === ""}>
          Apply the editor's SQL as a migration
        </button>
      </Form>
      {apply.isPending && <Progress label="Applying the migration" />}
      {apply.error && <ErrorNotice error={apply.error} />}
      {migrations.error && <ErrorNotice error={migrations.error} onRetry={() => migrations.refetch()} />}
      {migrations.data && (
        <DataTable caption="Applied migrations" columns={columns} rows={migrations.data} empty="No migration yet." initialSort={[{ id: "version", desc: true }]} />
      )}
    </section>
  );
}
