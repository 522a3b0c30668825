// Provision stage: a project's ref → the names of its database and roles on its server.
export interface ProjectNames {
  database: string;
  owner: string;
  authenticator: string;
  /** The platform's own logins into the database (made on first use by the SQL endpoints). */
  ownerLogin: string;
  readOnly: string;
}

export function projectNames(ref: string): ProjectNames {
  return {
    database: ref,
    owner: `${ref}_owner`,
    authenticator: `${ref}_authenticator`,
    ownerLogin: `${ref}_login`,
    readOnly: `${ref}_readonly`,
  };
}
