// Projects page (`#/`): the user's organizations and their projects (name, ref, status, region,
// created), with creating a project or an organization, pausing, restoring and deleting (typed
// confirmation). Two calls when it opens: the organizations and the projects.
import { useMemo, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { Link } from "wouter";
import { api } from "../api/apiClient";
import { pagePath, projectApi } from "../api/paths";
import { queryClient, useOrganizations, useProjects } from "../api/queries";
import type { Organization, Project } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { ConfirmByTyping } from "../widgets/ConfirmByTyping";
import { DataTable, type ColumnSpec } from "../widgets/DataTable";
import { localTime } from "../widgets/dates";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { StatusBadge } from "../widgets/StatusBadge";
import { CreateOrganizationForm } from "./CreateOrganizationForm";
import { CreateProjectForm } from "./CreateProjectForm";

type Action = { kind: "pause" | "restore" | "delete"; project: Project };

const doing: Record<Action["kind"], string> = { pause: "Pausing", restore: "Restoring", delete: "Deleting" };

async function perform(action: Action): Promise<void> {
  const { ref } = action.project;
  if (action.kind === "delete") await api.call("DELETE", projectApi(ref));
  else await api.post(projectApi(ref, `/${action.kind}`));
}

function ProjectTable({ org, projects, onAction, busy }: { org: Organization; projects: Project[]; onAction(a: Action): void; busy: boolean }) {
  const columns = useMemo<ColumnSpec<Project>[]>(
    () => [
      { id: "name", header: "Name", value: (p) => p.name, render: (p) => <Link href={pagePath(p.ref)}>{p.name}</Link> },
      { id: "ref", header: "Ref", value: (p) => p.ref, render: (p) => <code>{p.ref}</code> },
      { id: "status", header: "Status", value: (p) => p.status, render: (p) => <StatusBadge status={p.status} /> },
      { id: "region", header: "Region", value: (p) => p.region },
      { id: "created", header: "Created", value: (p) => p.created_at, render: (p) => localTime(p.created_at) },
      {
        id: "actions",
        header: "Actions",
        value: () => null,
        sortable: false,
        render: (p) => (
          <span className="row-actions">
            {p.status === "INACTIVE" ? (
              <button type="button" disabled={busy} onClick={() => onAction({ kind: "restore", project: p })} aria-label={`Restore ${p.name}`}>
                Restore
              </button>
            ) : (
              <button type="button" disabled={busy || p.status !== "ACTIVE_HEALTHY"} onClick={() => onAction({ kind: "pause", project: p })} aria-label={`Pause ${p.name}`}>
                Pause
              </button>
            )}
            <button type="button" className="danger" disabled={busy} onClick={() => onAction({ kind: "delete", project: p })} aria-label={`Delete ${p.name}`}>
              Delete
            </button>
          </span>
        ),
      },
    ],
    [busy, onAction],
  );
  return <DataTable caption={`Projects of ${org.name}`} columns={columns} rows={projects} empty="No project in this organization yet." />;
}

export function ProjectsPage() {
  const orgs = useOrganizations();
  const projects = useProjects();
  const [form, setForm] = useState<"project" | "organization" | null>(null);
  const [confirming, setConfirming] = useState<Project | null>(null);
  const action = useMutation({
    mutationFn: perform,
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["projects"] }),
    onSuccess: (_data, done) => queryClient.invalidateQueries({ queryKey: ["project", done.project.ref] }),
  });
  const onAction = useMemo(
    () => (a: Action) => {
      if (a.kind === "delete") setConfirming(a.project);
      else action.mutate(a);
    },
    [action.mutate],
  );
  const byOrg = (org: Organization) => (projects.data ?? []).filter((p) => p.organization_id === org.slug);
  return (
    <section>
      <PageTitle title="Projects" />
      <div className="actions">
        <button type="button" onClick={() => setForm(form === "project" ? null : "project")} aria-expanded={form === "project"} disabled={!orgs.data?.length}>
          New project
        </button>
        <button type="button" onClick={() => setForm(form === "organization" ? null : "organization")} aria-expanded={form === "organization"}>
          New organization
        </button>
      </div>
      {form === "organization" && <CreateOrganizationForm onClose={() => setForm(null)} />}
      {form === "project" && orgs.data && <CreateProjectForm organizations={orgs.data} onClose={() => setForm(null)} />}
      {action.isPending && action.variables && <Progress label={`${doing[action.variables.kind]} ${action.variables.project.name}`} />}
      {action.error && <ErrorNotice error={action.error} />}
      {confirming && (
        <div className="panel" role="group" aria-label={`Delete ${confirming.name}`}>
          <h2>Delete {confirming.name}</h2>
          <p>Its database, roles, keys and branches are removed.</p>
          <ConfirmByTyping
            word={confirming.name}
            action="Delete project"
            busy={action.isPending}
            onCancel={() => setConfirming(null)}
            onConfirm={() => {
              action.mutate({ kind: "delete", project: confirming });
              setConfirming(null);
            }}
          />
        </div>
      )}
      {(orgs.isPending || projects.isPending) && <Progress label="Reading organizations and projects" />}
      {orgs.error && <ErrorNotice error={orgs.error} onRetry={() => orgs.refetch()} />}
      {projects.error && <ErrorNotice error={projects.error} onRetry={() => projects.refetch()} />}
      {orgs.data?.length === 0 && <p>You belong to no organization yet: create one, then a project in it.</p>}
      {orgs.data?.map((org) => (
        <section key={org.slug} className="org">
          <h2>
            {org.name} <code>{org.slug}</code>
          </h2>
          <ProjectTable org={org} projects={byOrg(org)} onAction={onAction} busy={action.isPending} />
        </section>
      ))}
    </section>
  );
}
