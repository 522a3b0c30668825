// Types for managementTypes.mjs, so a test can generate the operation types.
export const generatedPath: string;
export function managementTypes(): Promise<string>;
