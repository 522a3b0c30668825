// Settings page (`#/project/<ref>/settings`): read-only mode (and lifting it for 15 minutes),
// network restrictions and the core auth settings. Four calls when it opens: the project and
// one for each section.
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/apiClient";
import { projectApi } from "../api/paths";
import { invalidateResource, useProjectResource } from "../api/queries";
import type { Project, ReadOnlyStatus } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { localTime } from "../widgets/dates";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { AuthSettingsForm } from "./AuthSettingsForm";
import { NetworkForm } from "./NetworkForm";

function ReadOnlySection({ projectRef }: { projectRef: string }) {
  const status = useProjectResource<ReadOnlyStatus>(projectRef, "/readonly");
  const lift = useMutation({
    mutationFn: () => api.post(projectApi(projectRef, "/readonly/temporary-disable")),
    onSettled: () => invalidateResource(projectRef, "/readonly"),
  });
  const data = status.data;
  return (
    <section aria-labelledby="readonly-title">
      <h2 id="readonly-title">Read-only mode</h2>
      <p className="hint">A project turns read-only when its database nears the disk quota; lifting it lasts 15 minutes.</p>
      {status.error && <ErrorNotice error={status.error} onRetry={() => status.refetch()} />}
      {data && (
        <p role="status">
          {data.enabled ? "The database is read-only" : "The database accepts writes"}
          {data.override_enabled ? `; read-only mode is lifted until ${localTime(data.override_active_until)}` : ""}.
        </p>
      )}
      {data?.enabled && !data.override_enabled && (
        <button type="button" onClick={() => lift.mutate()} disabled={lift.isPending}>
          Lift read-only mode for 15 minutes
        </button>
      )}
      {lift.isPending && <Progress label="Lifting read-only mode" />}
      {lift.error && <ErrorNotice error={lift.error} />}
    </section>
  );
}

export function SettingsPage({ project }: { project: Project }) {
  return (
    <section>
      <PageTitle title={`${project.name} · Settings`}>Settings</PageTitle>
      <ReadOnlySection projectRef={project.ref} />
      <NetworkForm projectRef={project.ref} />
      <AuthSettingsForm projectRef={project.ref} />
    </section>
  );
}
