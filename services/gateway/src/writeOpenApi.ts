// `npm run openapi`: writes the OpenAPI document to clients/openapi.json (the checked-in copy that
// domain/openApi.happy.test.ts holds to what the generator makes now). Run from the built gateway;
// the script then regenerates @ars/client's types from the file (clients/typescript, "Types").
import { writeFileSync } from 'node:fs';
import { openApiText } from './domain/openApi.js';
import { gatewayVersion } from './version.js';

const target = new URL('../../../clients/openapi.json', import.meta.url);
writeFileSync(target, openApiText(gatewayVersion()));
process.stdout.write(`wrote ${target.pathname}\n`);
