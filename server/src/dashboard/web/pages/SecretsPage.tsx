// Secrets page (`#/project/<ref>/secrets`): the project's secrets by name with the SHA-256 digest
// the API answers (values are never shown: the API does not give them back), setting one and
// removing one.
import { useId, useMemo, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/apiClient";
import { projectApi } from "../api/paths";
import { invalidateResource, useProjectResource } from "../api/queries";
import type { Project, Secret } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { DataTable, type ColumnSpec } from "../widgets/DataTable";
import { localTime } from "../widgets/dates";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { Form } from "../widgets/Form";

export function SecretsPage({ project }: { project: Project }) {
  const secrets = useProjectResource<Secret[]>(project.ref, "/secrets");
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const ids = { name: useId(), value: useId() };
  const changed = () => invalidateResource(project.ref, "/secrets");
  const set = useMutation({
    mutationFn: () => api.post(projectApi(project.ref, "/secrets"), [{ name: name.trim(), value }]),
    onSuccess: () => (setName(""), setValue("")),
    onSettled: changed,
  });
  const remove = useMutation({ mutationFn: (secret: string) => api.call("DELETE", projectApi(project.ref, "/secrets"), [secret]), onSettled: changed });
  const columns = useMemo<ColumnSpec<Secret>[]>(
    () => [
      { id: "name", header: "Name", value: (s) => s.name, render: (s) => <code>{s.name}</code> },
      { id: "digest", header: "SHA-256 of the value", value: (s) => s.value, render: (s) => <code className="digest">{s.value}</code> },
      { id: "updated", header: "Updated", value: (s) => s.updated_at ?? null, render: (s) => localTime(s.updated_at) },
      {
        id: "actions",
        header: "Actions",
        value: () => null,
        sortable: false,
        render: (s) => (
          <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(s.name)} aria-label={`Remove secret ${s.name}`}>
            Remove
          </button>
        ),
      },
    ],
    [remove.isPending, remove.mutate],
  );
  return (
    <section>
      <PageTitle title={`${project.name} · Secrets`}>Secrets</PageTitle>
      <Form
        className="inline-form"
        label="Set a secret"
        onSubmit={() => set.mutate()}
      >
        <label htmlFor={ids.name}>Name</label>
        <input id={ids.name} value={name} onChange={(e) => setName(e.target.value)} required pattern="[A-Za-z_][A-Za-z0-9_]*" title="letters, digits and underscores" />
        <label htmlFor={ids.value}>Value</label>
        <input id={ids.value} type="password" value={value} onChange={(e) => setValue(e.target.value)} required autoComplete="off" />
        <button type="submit" disabled={set.isPending}>
          Set secret
        </button>
      </Form>
      {set.error && <ErrorNotice error={set.error} />}
      {remove.error && <ErrorNotice error={remove.error} />}
      {(set.isPending || remove.isPending) && <Progress label="Saving" />}
      {secrets.isPending && <Progress label="Reading the secrets" />}
      {secrets.error && <ErrorNotice error={secrets.error} onRetry={() => secrets.refetch()} />}
      {secrets.data && <DataTable caption="Secrets (names and digests only)" columns={columns} rows={secrets.data} empty="No secret set." />}
    </section>
  );
}
