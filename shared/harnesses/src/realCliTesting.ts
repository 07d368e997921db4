// Test helper for the tests that start the bundled real CLIs.

/**
 * A loopback port nothing listens on, and nothing will: TCP port 1 (tcpmux), which no service of
 * this project binds and only root could. A port the kernel just handed out and that was closed
 * again could be taken by any process starting meanwhile (a CI run starts hundreds): once, beside
 * other load, Claude Code reported a model problem there (something answered), not an unreachable
 * provider.
 */
export function closedPort(): Promise<number> {
  return Promise.resolve(1);
}
