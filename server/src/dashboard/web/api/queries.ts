// API stage: the /v1 reads the pages share, through TanStack Query: an answer is kept for 30 s
// and shared by every page showing it (one call for the project whichever page opens), nothing is
// fetched again on focus, and a call is retried once only when no answer or a 5xx came.
import { QueryClient, useQuery, type UseQueryResult } from "@tanstack/react-query";
import { api } from "./apiClient";
import { ApiFailure } from "./apiFailure";
import { pollDelay } from "./backoff";
import { projectApi } from "./paths";
import type { ApiKey, Organization, Profile, Project, Row, ServiceHealth } from "./types";

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
      retry: (count, error) => count < 1 && error instanceof ApiFailure && (error.status === 0 || error.status >= 500),
      retryDelay: 2_000,
    },
  },
});

export function useProfile(): UseQueryResult<Profile> {
  return useQuery({ queryKey: ["profile"], queryFn: () => api.get<Profile>("/v1/profile"), staleTime: Infinity });
}

export function useOrganizations(): UseQueryResult<Organization[]> {
  return useQuery({ queryKey: ["organizations"], queryFn: () => api.get<Organization[]>("/v1/organizations") });
}

export function useProjects(): UseQueryResult<Project[]> {
  return useQuery({ queryKey: ["projects"], queryFn: () => api.get<Project[]>("/v1/projects") });
}

export function useProject(ref: string): UseQueryResult<Project> {
  return useQuery({ queryKey: ["project", ref], queryFn: () => api.get<Project>(projectApi(ref)) });
}

/** Any GET under the project (`rest` like "/secrets"); its key is ["project", ref, rest]. */
export function useProjectResource<T>(ref: string, rest: string, enabled = true): UseQueryResult<T> {
  return useQuery({ queryKey: ["project", ref, rest], queryFn: () => api.get<T>(projectApi(ref, rest)), enabled });
}

/** The project's keys; secret keys come unmasked only when `reveal` is asked. */
export function useApiKeys(ref: string, reveal: boolean): UseQueryResult<ApiKey[]> {
  return useProjectResource<ApiKey[]>(ref, reveal ? "/api-keys?reveal=true" : "/api-keys");
}

export const healthServices = ["db", "rest", "db_postgres_user"] as const;
const healthPath = `/health?${healthServices.map((s) => `services=${s}`).join("&")}`;

export function allHealthy(health: ServiceHealth[] | undefined): boolean {
  return health !== undefined && health.length > 0 && health.every((s) => s.healthy);
}

/** The project's services' health; with `poll`, asked again with back-off until all are healthy. */
export function useHealth(ref: string, poll = false): UseQueryResult<ServiceHealth[]> {
  return useQuery({
    queryKey: ["project", ref, "/health"],
    queryFn: () => api.get<ServiceHealth[]>(projectApi(ref, healthPath)),
    refetchInterval: (query) =>
      poll && !allHealthy(query.state.data) && !(query.state.error instanceof ApiFailure && query.state.error.status < 500)
        ? pollDelay(query.state.dataUpdateCount, api.rate.pollWait(Date.now()))
        : false,
  });
}

/** Rows of a read-only statement the dashboard itself runs (`database/query` with read_only). */
export function useReadOnlyRows(ref: string, query: string, parameters: unknown[] = [], enabled = true): UseQueryResult<Row[]> {
  return useQuery({
    queryKey: ["project", ref, "sql", query, parameters],
    queryFn: () => api.post<Row[]>(projectApi(ref, "/database/query"), { query, parameters, read_only: true }),
    enabled,
  });
}

export function invalidateProject(ref: string): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: ["project", ref] });
}

/** Drops the project's answers whose path starts with `prefix` (say "/api-keys"), so they are read again. */
export function invalidateResource(ref: string, prefix: string): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: (q) => q.queryKey[0] === "project" && q.queryKey[1] === ref && String(q.queryKey[2]).startsWith(prefix),
  });
}
