// The import boundaries of eslint.config.js (scripts/importBoundaries.js), checked by linting
// deliberately wrong imports, and the allowed forms, with ESLint's Node API as `npm run lint` does.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

const INFRASTRUCTURE = /Development infrastructure \(deploy\/local packages, @ars\/testenv\) is for tests and src\/testing\/ only/;
const CLIMBING = /A relative import must not leave its workspace\. Import the other package by its name/;
const CLIENT_ONLY = /Another service is reached only through its typed client, '@ars\/<service>\/client'/;
const CLIENT_OR_TESTING =
  /Another service is reached only through its entry points: '@ars\/<service>\/client' \(its typed client\) or, in tests and testing\/, '@ars\/<service>\/testing'/;

/** The messages of no-restricted-imports for one import statement in a file at `filePath`. */
async function refusals(filePath: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { thing } from '${specifier}';\nexport { thing };\n`, { filePath: `${root}${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe("a service's production sources import no development infrastructure", () => {
  it.each(['@ars/stack', '@ars/mongo-dev', '@ars/kafka-mock', '@ars/kubernetes-stand-in', '@ars/testenv', '@ars/testenv/jest'])(
    '%s from services/runs/src is refused with what to do instead',
    async (specifier) => {
      const messages = await refusals('services/runs/src/http/startRun.ts', specifier);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(INFRASTRUCTURE);
      expect(messages[0]).toContain('Move what production code needs into a shared/ package');
    },
  );

  it.each([
    ['a test', 'services/runs/src/http/startRun.happy.test.ts'],
    ['a testing/ harness', 'services/runs/src/testing/runsHarness.ts'],
    ['a testing.ts module', 'services/sandboxes/src/providers/kubernetes/testing.ts'],
    ['a cross-service test', 'test/gateway/devAccount.test.ts'],
    ['the test kit', 'deploy/local/testenv/src/infrastructure.ts'],
  ])('is allowed in %s', async (_what, filePath) => {
    expect(await refusals(filePath, '@ars/kubernetes-stand-in')).toEqual([]);
    expect(await refusals(filePath, '@ars/testenv')).toEqual([]);
  });
});

describe('no file imports another workspace by a relative path', () => {
  it.each([
    ['services/runs/src/testing/runsHarness.ts', '../../../catalog/src/testing/catalogHarness.js'],
    ['services/runs/src/runs.restart.test.ts', '../../catalog/src/testing/catalogHarness.js'],
    ['services/runs/src/main.ts', '../../catalog/src/catalog.js'],
    ['services/runs/main.ts', '../catalog/src/catalog.js'],
    ['shared/bus/src/deep/inside/file.ts', '../../../../errors/src/index.js'],
    ['deploy/local/stack/src/admin/main.ts', '../../../mongo-dev/src/index.js'],
    ['test/gateway/devAccount.test.ts', '../../services/gateway/src/gateway.js'],
    ['services/runs/src/http/startRun.ts', './../../../catalog/src/catalog.js'],
  ])('%s importing %s is refused with what to do instead', async (filePath, specifier) => {
    const messages = await refusals(filePath, specifier);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(CLIMBING);
    expect(messages[0]).toContain("'@ars/catalog/testing'");
  });

  it.each([
    ['services/runs/src/testing/runsHarness.ts', '../../package.json'],
    ['services/runs/src/testing/runsHarness.ts', '../http/startRun.js'],
    ['services/runs/src/http/startRun.ts', './startRun.error.js'],
    ['deploy/local/stack/src/admin/main.ts', '../stackFile.js'],
    ['test/gateway/devAccount.test.ts', '../support/accounts.js'],
  ])('a relative import that stays inside: %s importing %s is allowed', async (filePath, specifier) => {
    expect(await refusals(filePath, specifier)).toEqual([]);
  });
});

describe('a service imports another service only through its client entry point (and, in tests and testing/, its testing entry point)', () => {
  it.each(['@ars/catalog', '@ars/catalog/src/catalog.js', '@ars/catalog/testing', '@ars/sandboxes/dist/main.js'])(
    '%s from production sources is refused with what to do instead',
    async (specifier) => {
      const messages = await refusals('services/runs/src/http/startRun.ts', specifier);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(CLIENT_ONLY);
    },
  );

  it.each(['@ars/catalog', '@ars/catalog/src/testing/catalogHarness.js'])('%s from a test is refused with what to do instead', async (specifier) => {
    const messages = await refusals('services/runs/src/runs.restart.test.ts', specifier);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(CLIENT_OR_TESTING);
  });

  it('the client entry point is allowed everywhere in a service, the testing entry point in tests and testing/', async () => {
    expect(await refusals('services/runs/src/http/startRun.ts', '@ars/catalog/client')).toEqual([]);
    expect(await refusals('services/sandboxes/src/clients/runsClient.ts', '@ars/runs/client')).toEqual([]);
    expect(await refusals('services/runs/src/runs.restart.test.ts', '@ars/catalog/testing')).toEqual([]);
    expect(await refusals('services/runs/src/testing/runsHarness.ts', '@ars/catalog/testing')).toEqual([]);
    expect(await refusals('services/runs/src/testing/runsHarness.ts', '@ars/catalog/client')).toEqual([]);
  });

  it('shared packages and the system tests are not services: they import services as they need', async () => {
    expect(await refusals('test/gateway/devAccount.test.ts', '@ars/gateway')).toEqual([]);
    expect(await refusals('services/runs/src/http/startRun.ts', '@ars/bus')).toEqual([]);
  });
});
