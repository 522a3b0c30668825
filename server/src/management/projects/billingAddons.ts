// Routes (Management API): a project's billing add-ons. The selection is validated (a variant
// belongs to its add-on type) and stored per project; the catalogue lists what may be selected.
// Nothing is billed, resized or provisioned here: every price is 0 and says so.
import { ApiError } from "../http/apiError";
import { ServiceSettingsStore } from "../settings/serviceSettingsStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Caller, type Schema } from "../http/operation";

type Addon = Schema<"ListProjectAddonsResponse">["available_addons"][number];
type AddonType = Extract<Addon["type"], "compute_instance" | "custom_domain" | "pitr" | "ipv4">;
type VariantId = Addon["variants"][number]["id"];

const notBilled = "Not billed: this self-hosted server records the selection and changes nothing else";
const price = { description: notBilled, type: "fixed", interval: "monthly", amount: 0 } as const;

const computeSizes = ["micro", "small", "medium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "24xlarge_optimized_cpu", "24xlarge_optimized_memory", "24xlarge_high_memory", "48xlarge", "48xlarge_optimized_cpu", "48xlarge_optimized_memory", "48xlarge_high_memory"] as const;

const catalogue: Record<AddonType, { name: string; variants: { id: VariantId; name: string }[] }> = {
  compute_instance: { name: "Compute size", variants: computeSizes.map((size) => ({ id: `ci_${size}` as const, name: `Compute ${size.replace(/_/g, " ")}` })) },
  custom_domain: { name: "Custom domain", variants: [{ id: "cd_default", name: "Custom domain" }] },
  pitr: { name: "Point in time recovery", variants: ([7, 14, 28] as const).map((days) => ({ id: `pitr_${days}` as const, name: `${days} days of point in time recovery` })) },
  ipv4: { name: "Dedicated IPv4 address", variants: [{ id: "ipv4_default", name: "Dedicated IPv4 address" }] },
};

/** The type a variant belongs to, if any. */
function typeOf(variant: string): AddonType | undefined {
  return (Object.keys(catalogue) as AddonType[]).find((type) => catalogue[type].variants.some((v) => v.id === variant));
}

const store = (call: Caller) => call.services.stores.serviceSettings;

export const billingAddonsArea: ApiArea = {
  "v1-list-project-addons": async (call) => {
    const project = await requireProject(call);
    // A project always has a compute size; ci_micro until another is selected.
    const selected = await store(call).get<Partial<Record<AddonType, string>>>(project.ref, "addons", { compute_instance: "ci_micro" });
    return ok({
      selected_addons: Object.entries(selected).map(([type, id]) => {
        const variant = catalogue[type as AddonType].variants.find((v) => v.id === id)!;
        return { type: type as AddonType, variant: { ...variant, price, meta: { billed: false } } };
      }),
      available_addons: Object.entries(catalogue).map(([type, entry]) => ({ type: type as AddonType, name: entry.name, variants: entry.variants.map((v) => ({ ...v, price })) })),
    });
  },

  "v1-apply-project-addon": async (call) => {
    const project = await requireProject(call);
    const { addon_type, addon_variant } = call.body;
    const type = typeOf(addon_variant);
    if (type === undefined || !(addon_type in catalogue)) throw new ApiError(400, `The add-on type ${addon_type} cannot be selected here (${Object.keys(catalogue).join(", ")} can)`);
    if (type !== addon_type) throw new ApiError(400, `The variant ${addon_variant} is a ${type} add-on, not ${addon_type}`);
    await store(call).change(project.ref, "addons", { [type]: addon_variant });
    return ok(undefined);
  },

  "v1-remove-project-addon": async (call) => {
    const project = await requireProject(call);
    const variant = call.params.addon_variant;
    const type = typeOf(variant);
    if (type === undefined) throw new ApiError(400, `${variant} is not an add-on variant`);
    const selected = await store(call).get<Partial<Record<AddonType, string>>>(project.ref, "addons", {});
    if (selected[type] !== variant) throw new ApiError(400, `The add-on ${variant} is not selected for this project`);
    // Removing the compute size reverts it to ci_micro, which is the default answered.
    await store(call).removeKey(project.ref, "addons", type);
    return ok(undefined);
  },
};
