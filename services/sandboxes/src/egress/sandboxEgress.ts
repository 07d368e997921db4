// What both providers' egress shares: the settings (the two allowlists and where decisions go), who
// a sandbox is for its events, the variables proxy-aware tools read, and the rule that a
// destination is one event per outcome and phase.
import type { EgressAllowList } from '../domain/egressPolicy.js';
import type { EgressDecisionEvent } from './egressProxy.js';

/** Whose allowlist a connection follows: install steps', the agent's turn (and dev servers'), or a Pod's clone. */
export type EgressDecisionPhase = 'install' | 'agent' | 'clone';

/** Who a sandbox is, for its egress decisions' lifecycle events. */
export interface SandboxOwner {
  sandboxRecordId: string;
  runId: string | null;
}

export interface SandboxEgressSettings {
  /** SANDBOX_INSTALL_EGRESS_ALLOW: what install steps may reach. */
  install: EgressAllowList;
  /** SANDBOX_EGRESS_ALLOW: what the agent's turn and dev servers may reach. */
  agent: EgressAllowList;
  /** Each allowed or refused connection of a sandbox (its lifecycle). */
  onDecision?: (owner: SandboxOwner, phase: EgressDecisionPhase, event: EgressDecisionEvent) => void;
  /** How names are resolved (tests: a name for their test host); default the system resolver. */
  lookup?: (host: string) => Promise<string[]>;
}

/** Always reached directly: the sandbox's own loopback. */
const LOOPBACK = ['localhost', '127.0.0.1', '::1'];

/** The variables every proxy-aware tool reads (npm, pip, git, curl, node's fetch with them set); `direct` hosts and loopback bypass the proxy. */
export function proxyEnvironment(proxyUrl: string, direct: readonly string[] = []): Record<string, string> {
  const noProxy = [...LOOPBACK, ...direct].join(',');
  return {
    HTTPS_PROXY: proxyUrl,
    HTTP_PROXY: proxyUrl,
    https_proxy: proxyUrl,
    http_proxy: proxyUrl,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
}

/**
 * A decision listener that passes each destination on once per outcome: an install's hundred
 * downloads from one registry are one event, and a sandbox's few kept lifecycle events are not
 * pushed out by repeats.
 */
export function oncePerDestination(listener: (event: EgressDecisionEvent) => void): (event: EgressDecisionEvent) => void {
  const reported = new Set<string>();
  return (event) => {
    const key = `${event.kind} ${event.host}:${event.port} ${event.kind === 'egress_refused' ? event.reason : ''}`;
    if (reported.has(key)) return;
    reported.add(key);
    listener(event);
  };
}
