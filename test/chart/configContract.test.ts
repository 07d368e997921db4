// The config contract: each service's rendered Deployment (production profile) provides every
// variable its configuration requires, from a value or a Secret key. The environment is built from
// the Deployment (values as written, Secret keys as sample secrets of the right shape, optional
// Secret keys absent) and handed to the service's own configuration code: its schema through
// @ars/config's loader, the production refusals with its development defaults, and its own checks.
// Nothing here lists a service's variables: a variable added to a service and not to the chart fails.
import { describe, expect, it } from '@jest/globals';
import { loadConfig, productionProblems, serviceConfig, type DevelopmentDefault, type EnvSchema } from '@ars/config';
import { automationsEngineConfigSchema } from '@ars/automations-engine/config';
import { catalogConfigSchema, catalogDevelopmentDefaults, resolveCatalogSettings } from '@ars/catalog/config';
import { gatewayConfigProblems, gatewayConfigSchema, gatewayDevelopmentDefaults } from '@ars/gateway/config';
import { mcpRegistryConfigSchema, mcpRegistryDevelopmentDefaults, resolveMcpRegistrySettings } from '@ars/mcp-registry/config';
import { prReviewConfigSchema } from '@ars/pr-review/config';
import { checkRunsConfig, runsConfigSchema } from '@ars/runs/config';
import { checkDrainFitsShutdown, sandboxesConfigSchema, sandboxesDevelopmentDefaults } from '@ars/sandboxes/config';
import { kubernetesSettings } from '@ars/sandboxes/kubernetes-settings';
import { ofKind, renderProfile, type Manifest } from './render.js';

type Env = Record<string, string | undefined>;
type Config = Record<string, unknown>;

interface ServiceContract {
  /** The service's own variables (beside serviceConfig's). */
  schema: EnvSchema;
  /** Its development defaults, refused in production (runService's `developmentDefaults`). */
  developmentDefaults?: (config: never) => readonly DevelopmentDefault[];
  /** Its settings that cannot work together, in any environment (runService's `configProblems`). */
  configProblems?: (config: never) => readonly string[];
  /** The checks its start-up makes beside the schema (they throw naming the variable). */
  check?: (config: Config, env: Env) => unknown;
}

/** What each service's start-up runs on its environment (services/<name>/src/<name>.ts): the code, not a copy of it. */
const SERVICES: Record<string, ServiceContract> = {
  gateway: { schema: gatewayConfigSchema, developmentDefaults: gatewayDevelopmentDefaults, configProblems: gatewayConfigProblems },
  catalog: {
    schema: catalogConfigSchema,
    developmentDefaults: catalogDevelopmentDefaults,
    check: (config) => resolveCatalogSettings(config as unknown as Parameters<typeof resolveCatalogSettings>[0]),
  },
  runs: { schema: runsConfigSchema, check: (_config, env) => checkRunsConfig(env) },
  sandboxes: {
    schema: sandboxesConfigSchema,
    developmentDefaults: sandboxesDevelopmentDefaults,
    // The drain must fit the shutdown; the kubernetes provider reads its K8S_* variables itself (createProvider → kubernetesSettings).
    check: (config, env) => {
      checkDrainFitsShutdown(config as unknown as Parameters<typeof checkDrainFitsShutdown>[0]);
      return config.SANDBOX_PROVIDER === 'kubernetes' ? kubernetesSettings({ ...env, KUBERNETES_SERVICE_HOST: '10.96.0.1' }) : undefined;
    },
  },
  'automations-engine': { schema: automationsEngineConfigSchema },
  'pr-review': { schema: prReviewConfigSchema },
  'mcp-registry': {
    schema: mcpRegistryConfigSchema,
    developmentDefaults: mcpRegistryDevelopmentDefaults,
    check: (config) => resolveMcpRegistrySettings(config as unknown as Parameters<typeof resolveMcpRegistrySettings>[0]),
  },
};

/** A secret of the shape each variable takes (the operator's Secret holds the real one). */
const key32 = Buffer.alloc(32, 7).toString('base64');
const SAMPLE_SECRETS: Record<string, string> = {
  INTERNAL_TOKEN: 'internal-token-of-at-least-16-characters',
  MONGO_URL: 'mongodb://mongo.data.svc:27017/?replicaSet=rs0',
  REDIS_URL: 'redis://redis.data.svc:6379',
  OAUTH_COOKIE_KEYS: 'a-cookie-signing-key-of-at-least-32-characters',
  OIDC_CLIENT_SECRET: 'an-oidc-client-secret',
  CATALOG_SECRETS_KEY: key32,
  MCP_REGISTRY_SECRETS_KEY: key32,
  GITHUB_APP_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\\nMIIB\\n-----END RSA PRIVATE KEY-----',
};

/** What the downward API gives a field the Deployment reads, in its shape (the kubelet fills in the real one). */
const SAMPLE_FIELDS: Record<string, string> = {
  'status.podIP': '10.244.3.17',
};

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; fieldRef?: { fieldPath: string } };
}
type Deployment = Manifest & { spec: { template: { spec: { containers: { env?: EnvVar[] }[] } } } };

const production = renderProfile('production');
const deploymentOf = (service: string): Deployment => {
  const found = ofKind<Deployment>(production, 'Deployment').find((d) => d.metadata.labels?.['app.kubernetes.io/component'] === service);
  if (!found) throw new Error(`no Deployment for ${service}`);
  return found;
};
const envOf = (deployment: Deployment): EnvVar[] => deployment.spec.template.spec.containers[0]?.env ?? [];

/** The environment the Deployment gives its container: optional Secret keys count as absent (the Secret may not hold them). */
function environmentOf(deployment: Deployment): { env: Env; problems: string[] } {
  const env: Env = {};
  const problems: string[] = [];
  for (const variable of envOf(deployment)) {
    const ref = variable.valueFrom?.secretKeyRef;
    const field = variable.valueFrom?.fieldRef?.fieldPath;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (field !== undefined) {
      const sample = SAMPLE_FIELDS[field];
      if (sample === undefined) problems.push(`${variable.name} comes from the field ${field}; add a sample of its shape to SAMPLE_FIELDS`);
      else env[variable.name] = sample;
    } else if (ref && !ref.optional) {
      const sample = SAMPLE_SECRETS[variable.name];
      if (sample === undefined) problems.push(`${variable.name} comes from a Secret key; add a sample secret of its shape to SAMPLE_SECRETS`);
      else env[variable.name] = sample;
    }
  }
  return { env, problems };
}

/** Runs the service's configuration code on the environment: the one line each problem would print at start-up, or none. */
function configurationProblems(service: string, env: Env): string[] {
  const contract = SERVICES[service];
  if (!contract) return [`no contract for ${service}`];
  try {
    const config = loadConfig({ ...serviceConfig({ service }), ...contract.schema }, env) as unknown as Config;
    const problems: string[] = [];
    // Every service's runService declares requireMongo and requireBus.
    if (!config.MONGO_URL) problems.push('MONGO_URL is required');
    if (!config.KAFKA_BROKERS) problems.push('KAFKA_BROKERS is required');
    problems.push(...(contract.configProblems?.(config as never) ?? []));
    problems.push(...productionProblems(config as never, contract.developmentDefaults?.(config as never)));
    if (problems.length > 0) return problems;
    contract.check?.(config, env);
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

describe("every variable a service's configuration requires in production is provided by its Deployment, from a value or a Secret key", () => {
  it.each(Object.keys(SERVICES))('%s', (service) => {
    const { env, problems } = environmentOf(deploymentOf(service));
    expect(problems).toEqual([]);
    expect(env.ARS_ENV).toBe('production');
    expect(configurationProblems(service, env)).toEqual([]);
  });

  it('the check fails when the Deployment misses one (the gateway without PUBLIC_BASE_URL, catalog without its secrets key)', () => {
    const gateway = environmentOf(deploymentOf('gateway')).env;
    delete gateway.PUBLIC_BASE_URL;
    expect(configurationProblems('gateway', gateway)).toEqual([expect.stringContaining('PUBLIC_BASE_URL is required in production')]);
    const catalog = environmentOf(deploymentOf('catalog')).env;
    delete catalog.CATALOG_SECRETS_KEY;
    expect(configurationProblems('catalog', catalog)).toEqual([expect.stringContaining('CATALOG_SECRETS_KEY is required in production')]);
    const runs = environmentOf(deploymentOf('runs')).env;
    delete runs.SANDBOXES_URL;
    expect(configurationProblems('runs', runs)).toEqual([expect.stringContaining('SANDBOXES_URL')]);
  });
});

describe('the Deployments set only variables the service reads, and its secrets only from Secret keys', () => {
  it.each(Object.keys(SERVICES))('%s', (service) => {
    const contract = SERVICES[service] as ServiceContract;
    const schema: EnvSchema = { ...serviceConfig({ service }), ...contract.schema };
    const unknown: string[] = [];
    const inTheClear: string[] = [];
    for (const variable of envOf(deploymentOf(service))) {
      const declared = schema[variable.name];
      // The kubernetes provider's K8S_*, MODEL_GATEWAY_* and EGRESS_PROXY_* variables are read by kubernetesSettings, outside the schema.
      if (!declared && !(service === 'sandboxes' && /^(K8S|MODEL_GATEWAY|EGRESS_PROXY)_/.test(variable.name))) unknown.push(variable.name);
      if (declared?.secret && variable.value !== undefined) inTheClear.push(variable.name);
    }
    expect({ unknown, inTheClear }).toEqual({ unknown: [], inTheClear: [] });
  });
});
