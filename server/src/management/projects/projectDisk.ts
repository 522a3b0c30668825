// Routes (Management API): a project's disk. The used space is the project database's real size
// (`pg_database_size`); the disk attributes are validated with the hosted limits and recorded,
// but nothing is resized: the database lives on its server's file system, shared with others.
import { ApiError } from "../http/apiError";
import { ServiceSettingsStore } from "../settings/serviceSettingsStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Caller } from "../http/operation";
import type { ProjectRecord } from "../tenants/projectStore";

type DiskAttributes = { type: "gp3"; size_gb: number; iops: number; throughput_mibps?: number } | { type: "io2"; size_gb: number; iops: number };

interface DiskDocument {
  attributes: DiskAttributes;
  last_modified_at?: string;
}

const gib = 1024 ** 3;
const defaults: DiskDocument = { attributes: { type: "gp3", size_gb: 8, iops: 3000, throughput_mibps: 125 } };

/** The hosted limits of a disk: the first broken one, if any. */
function refusal(a: DiskAttributes): string | undefined {
  if (a.size_gb > 61_440) return "size_gb is at most 61440 (60 TB)";
  switch (a.type) {
    case "gp3":
      if (a.iops < 3000 || a.iops > 16_000) return "a gp3 disk has 3000 to 16000 iops";
      if (a.throughput_mibps !== undefined && (a.throughput_mibps < 125 || a.throughput_mibps > 1000)) return "a gp3 disk has 125 to 1000 MiB/s throughput";
      return undefined;
    case "io2":
      if (a.iops < 100 || a.iops > 256_000) return "an io2 disk has 100 to 256000 iops";
      if (a.iops > a.size_gb * 1000) return "an io2 disk has at most 1000 iops per GB of size";
      return undefined;
    default: {
      const never: never = a;
      return `unknown disk type ${(never as { type: string }).type}`;
    }
  }
}

const disk = (call: Caller, project: ProjectRecord) => call.services.stores.serviceSettings.get(project.ref, "disk", defaults);

async function usedBytes(call: Caller, project: ProjectRecord): Promise<number> {
  return call.services.door.server(project.server).databases.bytes(project.database_name);
}

export const projectDiskArea: ApiArea = {
  "v1-get-database-disk": async (call) => {
    const project = await requireProject(call);
    return ok(await disk(call, project));
  },

  "v1-modify-database-disk": async (call) => {
    const project = await requireProject(call);
    const wanted = call.body.attributes;
    const broken = refusal(wanted);
    if (broken) throw new ApiError(400, `Disk not changed: ${broken}`);
    const current = await disk(call, project);
    if (wanted.size_gb < current.attributes.size_gb) throw new ApiError(400, `Disk not changed: a disk only grows (it is ${current.attributes.size_gb} GB)`);
    const used = await usedBytes(call, project);
    if (wanted.size_gb * gib < used) throw new ApiError(400, `Disk not changed: the database already uses ${used} bytes, more than ${wanted.size_gb} GB`);
    await call.services.stores.serviceSettings.change(project.ref, "disk", { attributes: wanted, last_modified_at: new Date().toISOString() });
    return ok(undefined, 201);
  },

  "v1-get-disk-utilization": async (call) => {
    const project = await requireProject(call);
    const size = (await disk(call, project)).attributes.size_gb * gib;
    const used = await usedBytes(call, project);
    return ok({ timestamp: new Date().toISOString(), metrics: { fs_size_bytes: size, fs_used_bytes: used, fs_avail_bytes: Math.max(0, size - used) } });
  },

  // No disk grows by itself here: autoscaling is not configured (each limit null).
  "v1-get-project-disk-autoscale-config": async (call) => {
    await requireProject(call);
    return ok({ growth_percent: null, min_increment_gb: null, max_size_gb: null });
  },
};
