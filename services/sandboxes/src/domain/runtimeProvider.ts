/** How a run's harness ran: a real agent CLI (a path or `bundled`), or the scripted stand-in. */
export type HarnessKind = 'agent' | 'stand-in';

/** The suffix `runtime.provider` carries when the stand-in ran instead of an agent. */
export const STAND_IN_SUFFIX = '/stand-in';

/**
 * The Run's `runtime.provider`: the sandbox provider (`local`, `kubernetes`), followed by
 * `/stand-in` when the harness was the stand-in — a scripted agent whose `success` proves nothing —
 * so a reader can tell what actually ran: `local`, `local/stand-in`, `kubernetes`, `kubernetes/stand-in`.
 */
export function runtimeProvider(sandboxProvider: string, harness: HarnessKind): string {
  return harness === 'stand-in' ? `${sandboxProvider}${STAND_IN_SUFFIX}` : sandboxProvider;
}
