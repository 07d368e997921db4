import type { McpServerItem } from './mcpServers.js';

/**
 * The two example tool servers of a development account: one command shape with a secret in `env`,
 * one URL shape with an `Authorization` header. `secret` makes their values distinct per account
 * (they are examples, not credentials of anything).
 */
export function devExampleServers(secret: string): McpServerItem[] {
  return [
    {
      name: 'github',
      enabled: true,
      config: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: `example-github-token-${secret}` },
      },
    },
    {
      name: 'docs-search',
      enabled: true,
      config: {
        url: 'https://mcp.example.com/mcp',
        http_headers: { Authorization: `Bearer example-docs-token-${secret}` },
      },
    },
  ];
}
