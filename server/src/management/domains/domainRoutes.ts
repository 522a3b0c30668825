// Routes (Management API): a project's custom hostname and vanity subdomain. Both are recorded
// and validated with the hosted state machine; the DNS challenge is really looked up. What does
// not happen here: no certificate is issued and no traffic is routed by these names (the server
// answers `/project/<ref>/...` and `<ref>.<domain>` hosts; a reverse proxy maps other names).
import { randomUUID } from "node:crypto";
import { resolveTxt } from "node:dns/promises";
import { ApiError } from "../http/apiError";
import { DomainStore, type HostnameStatus, type ProjectDomains } from "../domains/domainStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type ProjectCall } from "../http/operation";

const hostnamePattern = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const subdomainPattern = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const notServed = "This server issues no certificate and routes no traffic by this hostname: point a reverse proxy that terminates TLS for it at /project/<ref>/ on this server.";

const challengeName = (hostname: string) => `_pg-graphql-challenge.${hostname}`;

function hostnameAnswer(ref: string, domains: ProjectDomains, messages: string[] = []) {
  const hostname = domains.custom_hostname ?? "";
  return {
    status: domains.hostname_status,
    custom_hostname: hostname,
    data: {
      success: true,
      errors: [],
      messages: [...messages, notServed],
      result: {
        id: ref,
        hostname,
        // No certificate is issued here; the one record to publish is the ownership challenge.
        ssl: {
          status: "not_issued_self_hosted",
          validation_records: domains.verification_token ? [{ txt_name: challengeName(hostname), txt_value: domains.verification_token }] : [],
        },
        ownership_verification: { type: "txt", name: challengeName(hostname), value: domains.verification_token ?? "" },
        custom_origin_server: "",
        status: domains.hostname_status === "5_services_reconfigured" ? "active" : "pending",
      },
    },
  };
}

async function step(call: ProjectCall, from: HostnameStatus[], to: HostnameStatus, refusal: string, check?: (d: ProjectDomains) => Promise<void>) {
  const project = await requireProject(call);
  const store = call.services.stores.domains;
  const current = await store.get(project.ref);
  if (!from.includes(current.hostname_status)) throw new ApiError(400, `${refusal} (the custom hostname is at ${current.hostname_status})`);
  await check?.(current);
  if (!(await store.moveHostname(project.ref, from, to, current.custom_hostname, current.verification_token))) {
    throw new ApiError(409, "The custom hostname changed meanwhile; read it and try again");
  }
  return ok(hostnameAnswer(project.ref, await store.get(project.ref)), 201);
}

export const domainsArea: ApiArea = {
  "v1-get-hostname-config": async (call) => {
    const project = await requireProject(call);
    return ok(hostnameAnswer(project.ref, await call.services.stores.domains.get(project.ref)));
  },

  "v1-update-hostname-config": async (call) => {
    const project = await requireProject(call);
    const hostname = call.body.custom_hostname.trim().toLowerCase().replace(/\.$/, "");
    if (!hostnamePattern.test(hostname)) throw new ApiError(400, `"${hostname}" is not a valid hostname (labels of letters, digits and hyphens, and a top-level domain)`);
    const store = call.services.stores.domains;
    const token = randomUUID();
    if (!(await store.moveHostname(project.ref, ["1_not_started", "2_initiated", "3_challenge_verified"], "2_initiated", hostname, token))) {
      throw new ApiError(400, "The project has an active custom hostname: delete it before initializing another");
    }
    return ok(hostnameAnswer(project.ref, await store.get(project.ref), [`Add a TXT record ${challengeName(hostname)} with the value ${token}, then call reverify.`]), 201);
  },

  "v1-verify-dns-config": (call) =>
    step(call, ["2_initiated"], "3_challenge_verified", "Initialize a custom hostname before verifying it", async (domains) => {
      const lookup = call.services.config.resolveTxt ?? resolveTxt;
      const records = await lookup(challengeName(domains.custom_hostname!)).catch(() => [] as string[][]);
      if (!records.some((chunks) => chunks.join("") === domains.verification_token)) {
        throw new ApiError(400, `The TXT record ${challengeName(domains.custom_hostname!)} does not hold ${domains.verification_token} yet`);
      }
    }),

  "v1-activate-custom-hostname": (call) => step(call, ["3_challenge_verified"], "5_services_reconfigured", "Verify the custom hostname's DNS record before activating it"),

  "v1-Delete hostname config": async (call) => {
    const project = await requireProject(call);
    await call.services.stores.domains.moveHostname(project.ref, ["1_not_started", "2_initiated", "3_challenge_verified", "5_services_reconfigured"], "1_not_started", null, null);
    return ok(undefined);
  },

  "v1-get-vanity-subdomain-config": async (call) => {
    const project = await requireProject(call);
    const domains = await call.services.stores.domains.get(project.ref);
    if (domains.vanity_subdomain) return ok({ status: "active" as const, custom_domain: domains.vanity_subdomain });
    return ok({ status: domains.hostname_status === "5_services_reconfigured" ? ("custom-domain-used" as const) : ("not-used" as const) });
  },

  "v1-check-vanity-subdomain-availability": async (call) => {
    const project = await requireProject(call);
    const wanted = call.body.vanity_subdomain;
    const available = subdomainPattern.test(wanted) && (await call.services.stores.domains.subdomainFree(project.ref, wanted));
    return ok({ available }, 201);
  },

  "v1-activate-vanity-subdomain-config": async (call) => {
    const project = await requireProject(call);
    const wanted = call.body.vanity_subdomain;
    if (!subdomainPattern.test(wanted)) throw new ApiError(400, "A vanity subdomain is 1 to 63 lowercase letters, digits and inner hyphens");
    const store = call.services.stores.domains;
    if ((await store.get(project.ref)).hostname_status === "5_services_reconfigured") {
      throw new ApiError(400, "The project uses a custom hostname: delete it before activating a vanity subdomain");
    }
    if (!(await store.subdomainFree(project.ref, wanted))) throw new ApiError(409, `The vanity subdomain ${wanted} is taken`);
    await store.setSubdomain(project.ref, wanted);
    return ok({ custom_domain: wanted }, 201);
  },

  "v1-deactivate-vanity-subdomain-config": async (call) => {
    const project = await requireProject(call);
    await call.services.stores.domains.setSubdomain(project.ref, null);
    return ok(undefined);
  },
};
