// Projects page: a new project (organization, name, region, database password) → POST
// /v1/projects, which answers once the database is made, then its health asked with back-off
// until every service answers; the progress of both is shown.
import { useId, useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { api } from "../api/apiClient";
import { pagePath } from "../api/paths";
import { allHealthy, queryClient, useHealth } from "../api/queries";
import type { Organization, Project, Regions } from "../api/types";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { HealthList } from "./HealthList";
import { Form } from "../widgets/Form";

function randomPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, "x");
}

function WaitForHealth({ project }: { project: Project }) {
  const health = useHealth(project.ref, true);
  const ready = allHealthy(health.data);
  return (
    <div className="panel" aria-label={`New project ${project.name}`}>
      {ready ? (
        <p role="status">
          Project <strong>{project.name}</strong> (<code>{project.ref}</code>) is healthy. <Link href={pagePath(project.ref)}>Open its overview</Link> or{" "}
          <Link href={pagePath(project.ref, "graphiql")}>its GraphiQL</Link>.
        </p>
      ) : (
        <Progress label={`Waiting until ${project.name} is healthy`} detail={health.data ? `${health.data.filter((s) => s.healthy).length} of ${health.data.length} services healthy` : undefined} />
      )}
      {health.data && <HealthList health={health.data} />}
      {health.error && <ErrorNotice error={health.error} onRetry={() => health.refetch()} />}
    </div>
  );
}

export function CreateProjectForm({ organizations, onClose }: { organizations: Organization[]; onClose(): void }) {
  const [org, setOrg] = useState(organizations[0]?.slug ?? "");
  const [name, setName] = useState("");
  const [region, setRegion] = useState("");
  const [password, setPassword] = useState(randomPassword);
  const [showPassword, setShowPassword] = useState(false);
  const ids = { org: useId(), name: useId(), region: useId(), password: useId() };
  const regions = useQuery({
    queryKey: ["regions", org],
    queryFn: () => api.get<Regions>(`/v1/projects/available-regions?organization_slug=${encodeURIComponent(org)}`),
    enabled: org !== "",
    staleTime: Infinity,
  });
  const chosenRegion = region || regions.data?.all.specific[0]?.code || "";
  const create = useMutation({
    mutationFn: () => api.post<Project>("/v1/projects", { name: name.trim(), organization_slug: org, region: chosenRegion, db_pass: password }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["projects"] }),
  });
  if (create.data) {
    return (
      <>
        <WaitForHealth project={create.data} />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </>
    );
  }
  return (
    <Form
      className="panel"
      label="New project"
      onSubmit={() => create.mutate()}
    >
      <h2>New project</h2>
      <div className="fields">
        <label htmlFor={ids.org}>Organization</label>
        <select id={ids.org} value={org} onChange={(e) => setOrg(e.target.value)}>
          {organizations.map((o) => (
            <option key={o.slug} value={o.slug}>
              {o.name} ({o.slug})
            </option>
          ))}
        </select>
        <label htmlFor={ids.name}>Name</label>
        <input id={ids.name} value={name} onChange={(e) => setName(e.target.value)} required autoFocus />
        <label htmlFor={ids.region}>Region</label>
        <select id={ids.region} value={chosenRegion} onChange={(e) => setRegion(e.target.value)}>
          {(regions.data?.all.specific ?? []).map((r) => (
            <option key={r.code} value={r.code}>
              {r.code}
            </option>
          ))}
        </select>
        <label htmlFor={ids.password}>Database password</label>
        <span className="inline">
          <input id={ids.password} type={showPassword ? "text" : "password"} value={password} onChange={(e) => setPassword(e.target.value)} required minLength={4} autoComplete="new-password" />
          <label className="check">
            <input type="checkbox" checked={showPassword} onChange={(e) => setShowPassword(e.target.checked)} /> Show
          </label>
          <button type="button" onClick={() => setPassword(randomPassword())}>
            New random password
          </button>
        </span>
      </div>
      <p className="hint">The password is the owner role's (<code>&lt;ref&gt;_owner</code>) for connecting to the database; keep it, it is not shown again.</p>
      <div className="actions">
        <button type="submit" disabled={create.isPending || name.trim() === "" || chosenRegion === ""}>
          Create project
        </button>
        <button type="button" onClick={onClose} disabled={create.isPending}>
          Cancel
        </button>
      </div>
      {create.isPending && <Progress label={`Creating ${name.trim()}: copying the template database`} />}
      {regions.error && <ErrorNotice error={regions.error} />}
      {create.error && <ErrorNotice error={create.error} />}
    </Form>
  );
}
