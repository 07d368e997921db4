// The harness's whole environment: built from nothing, never from the service's own (which holds
// the internal token, database URLs and possibly provider keys).

/** The variables a harness process gets: PATH (node for the stand-ins, git, a shell), HOME inside the sandbox, locale, time zone. */
export function harnessEnvironment(input: {
  path: string | undefined;
  home: string;
  lang?: string | undefined;
  tz?: string | undefined;
}): Record<string, string> {
  return {
    PATH: input.path && input.path.length > 0 ? input.path : '/usr/local/bin:/usr/bin:/bin',
    HOME: input.home,
    LANG: input.lang ?? 'C.UTF-8',
    TZ: input.tz ?? 'UTC',
    // Git inside the sandbox never asks on a terminal (there is none).
    GIT_TERMINAL_PROMPT: '0',
  };
}
