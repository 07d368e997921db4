// The public bodies the sandboxes service validates, as JSON Schemas: its routes check with them, and
// the gateway's MCP tools take their input schemas from them (through the client entry point).

const nullableString = { type: ['string', 'null'], maxLength: 1000 };

/** CONTRACT.md, POST /sandboxes, Body (the types; the rules beyond types are `planSandbox`'s). */
export const CREATE_SANDBOX_BODY_SCHEMA = {
  type: 'object',
  required: ['repoId'],
  properties: {
    repoId: { type: 'string', minLength: 1, maxLength: 200 },
    baseBranch: nullableString,
    workingBranch: nullableString,
    createBranch: { type: 'boolean' },
    rootDirectory: nullableString,
    restoreSnapshotId: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
    restoreSnapshotProjectId: nullableString,
    restoreSnapshotTeamId: nullableString,
  },
} as const;
