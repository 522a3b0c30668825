// Tenants (Management API kernel): what must hear that a project's stored settings changed (the
// data API's pools, which reopen their connections with the new settings). Features that change
// settings depend on this, not on the data API.
export interface SettingsChanged {
  changed(ref: string): Promise<void>;
}
