/** Field limits of an automation (the contract leaves them open). */
export const AUTOMATION_LIMITS = {
  maxNameLength: 200,
  maxDescriptionLength: 2_000,
  maxNotesLength: 20_000,
} as const;

/** The name of an automation created without one. */
export const DEFAULT_AUTOMATION_NAME = 'Untitled automation';
