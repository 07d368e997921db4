// What `POST /runs` `mode` changes (CONTRACT.md leaves its values open). No I/O.

/** The modes in which the agent may read but not change the working tree: codex `--sandbox read-only`, Claude Code `permissionMode: "plan"`. */
export const READ_ONLY_MODES: readonly string[] = ['plan', 'read-only'];

export interface HarnessMode {
  /** The mode as it ran: `default` when none was asked, else the value given. */
  name: string;
  readOnly: boolean;
}

/** Any other value (and none) runs the default mode, in which the agent edits the working tree; the name is kept, so the run says what it ran with. */
export function harnessModeOf(mode: string | null | undefined): HarnessMode {
  const name = mode?.trim() ? mode.trim() : 'default';
  return { name, readOnly: READ_ONLY_MODES.includes(name.toLowerCase()) };
}

/** The `stream_started` message names the mode that ran (its payload stays `{}`). */
export function withMode(startMessage: string, mode: HarnessMode): string {
  return `${startMessage} (mode: ${mode.name}${mode.readOnly ? ', read-only' : ''})`;
}
