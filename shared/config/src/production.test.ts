import { ConfigError, productionProblems, refuseDevelopmentDefaults } from '@ars/config';

const standIn = { inUse: true, problem: 'CODEX_PATH is required in production (unset runs the stand-in)' };
const unused = { inUse: false, problem: 'never shown' };

describe('outside production nothing is refused', () => {
  test.each(['development', 'test'] as const)('%s: no problems, even without INTERNAL_TOKEN and with a default in use', (environment) => {
    expect(productionProblems({ NODE_ENV: environment }, [standIn])).toEqual([]);
    expect(() => refuseDevelopmentDefaults({ NODE_ENV: 'production', ARS_ENV: environment }, [standIn])).not.toThrow();
  });
});

describe('in production INTERNAL_TOKEN is required in every service, and each development default in use is named', () => {
  test('ARS_ENV=production: the token and the default in use, in that order; an unused default is not named', () => {
    expect(productionProblems({ NODE_ENV: 'development', ARS_ENV: 'production' }, [standIn, unused])).toEqual([
      'INTERNAL_TOKEN is required in production (a string of at least 16 characters)',
      standIn.problem,
    ]);
  });
  test('NODE_ENV=production without ARS_ENV is production', () => {
    expect(productionProblems({ NODE_ENV: 'production', INTERNAL_TOKEN: 'x'.repeat(16) })).toEqual([]);
    expect(productionProblems({ NODE_ENV: 'production' })).toHaveLength(1);
  });
  test('refuseDevelopmentDefaults throws one ConfigError whose message is one line naming each', () => {
    expect(() => refuseDevelopmentDefaults({ NODE_ENV: 'production' }, [standIn])).toThrow(
      new ConfigError(['INTERNAL_TOKEN is required in production (a string of at least 16 characters)', standIn.problem]),
    );
  });
});
