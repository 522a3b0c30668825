// Branches page (`#/project/<ref>/branches`): the project's branches (each a project of its own,
// linked to its pages), making one (with or without a copy of the data; the call answers once
// the branch is made and its migrations replayed, shown as progress) and deleting one.
import { useId, useMemo, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { Link } from "wouter";
import { api } from "../api/apiClient";
import { pagePath, projectApi } from "../api/paths";
import { invalidateResource, queryClient, useProjectResource } from "../api/queries";
import type { Branch, Project } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { ConfirmByTyping } from "../widgets/ConfirmByTyping";
import { DataTable, type ColumnSpec } from "../widgets/DataTable";
import { localTime } from "../widgets/dates";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { StatusBadge } from "../widgets/StatusBadge";
import { Form } from "../widgets/Form";

export function BranchesPage({ project }: { project: Project }) {
  const branches = useProjectResource<Branch[]>(project.ref, "/branches");
  const [name, setName] = useState("");
  const [withData, setWithData] = useState(false);
  const [deleting, setDeleting] = useState<Branch | null>(null);
  const ids = { name: useId(), data: useId() };
  const changed = () => Promise.all([invalidateResource(project.ref, "/branches"), queryClient.invalidateQueries({ queryKey: ["projects"] })]);
  const create = useMutation({
    mutationFn: (body: { branch_name: string; with_data: boolean }) => api.post<Branch>(projectApi(project.ref, "/branches"), body),
    onSuccess: () => setName(""),
    onSettled: changed,
  });
  const remove = useMutation({
    mutationFn: (branch: Branch) => api.call("DELETE", `/v1/branches/${encodeURIComponent(branch.id)}`),
    onSettled: changed,
  });
  const columns = useMemo<ColumnSpec<Branch>[]>(
    () => [
      { id: "name", header: "Name", value: (b) => b.name, render: (b) => <Link href={pagePath(b.project_ref)}>{b.name}</Link> },
      { id: "ref", header: "Ref", value: (b) => b.project_ref, render: (b) => <code>{b.project_ref}</code> },
      { id: "status", header: "Status", value: (b) => b.status, render: (b) => <StatusBadge status={b.status} /> },
      { id: "data", header: "With data", value: (b) => (b.with_data ? "yes" : "no") },
      { id: "created", header: "Created", value: (b) => b.created_at, render: (b) => localTime(b.created_at) },
      { id: "deletion", header: "Deletion scheduled", value: (b) => b.deletion_scheduled_at ?? null, render: (b) => localTime(b.deletion_scheduled_at) },
      {
        id: "actions",
        header: "Actions",
        value: () => null,
        sortable: false,
        render: (b) => (
          <button type="button" className="danger" onClick={() => setDeleting(b)} aria-label={`Delete branch ${b.name}`}>
            Delete
          </button>
        ),
      },
    ],
    [],
  );
  return (
    <section>
      <PageTitle title={`${project.name} · Branches`}>Branches</PageTitle>
      <Form
        className="inline-form"
        label="New branch"
        onSubmit={() => create.mutate({ branch_name: name.trim(), with_data: withData })}
      >
        <label htmlFor={ids.name}>Branch name</label>
        <input id={ids.name} value={name} onChange={(e) => setName(e.target.value)} required />
        <label className="check" htmlFor={ids.data}>
          <input id={ids.data} type="checkbox" checked={withData} onChange={(e) => setWithData(e.target.checked)} /> Copy the data
        </label>
        <button type="submit" disabled={create.isPending || name.trim() === "" || project.status !== "ACTIVE_HEALTHY"}>
          Create branch
        </button>
      </Form>
      {create.isPending && create.variables && (
        <Progress label={`Making branch ${create.variables.branch_name}: ${create.variables.with_data ? "copying the database" : "replaying the migrations"}`} />
      )}
      {create.error && <ErrorNotice error={create.error} />}
      {create.data && !create.isPending && (
        <p role="status">
          Branch {create.data.name} is made ({create.data.status}).
        </p>
      )}
      {deleting && (
        <div className="panel" role="group" aria-label={`Delete branch ${deleting.name}`}>
          <ConfirmByTyping
            word={deleting.name}
            action="Delete branch"
            onCancel={() => setDeleting(null)}
            onConfirm={() => {
              remove.mutate(deleting);
              setDeleting(null);
            }}
          />
        </div>
      )}
      {remove.isPending && <Progress label="Deleting the branch" />}
      {remove.error && <ErrorNotice error={remove.error} />}
      {branches.isPending && <Progress label="Reading the branches" />}
      {branches.error && <ErrorNotice error={branches.error} onRetry={() => branches.refetch()} />}
      {branches.data && <DataTable caption="Branches" columns={columns} rows={branches.data} empty="No branch yet." />}
    </section>
  );
}
