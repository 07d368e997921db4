// The answers' interfaces and their JSON Schemas are one shape: the type assertions below fail
// `npm run typecheck` when either drifts; the runtime tests hold real views to the schemas.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FromSchema } from 'json-schema-to-ts';
import {
  AUTOMATION_EVENT_RESULT_SCHEMA,
  AUTOMATION_RUN_DETAIL_SCHEMA,
  AUTOMATION_RUN_SUMMARY_SCHEMA,
  AUTOMATION_SCHEMA,
  AUTOMATION_SUMMARY_SCHEMA,
  TRIGGER_RESULT_SCHEMA,
  VALIDATION_RESULT_SCHEMA,
} from './answerSchemas.js';
import type { AutomationRunDetail, AutomationRunSummary } from './automationRunView.js';
import { toAutomation, toAutomationSummary, type Automation, type AutomationSummary } from './automationView.js';
import type { Problem } from './publishChecks.js';
import type { TriggerResult } from '../http/triggerAutomation.js';

/** True only when A and B are assignable both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(): T => true as T;
/** A field typed JsonValue is `unknown` in the schema's type (`{}`): held one way, the rest both ways. */
type JsonFields = 'input' | 'vars' | 'nodeRuns' | 'events';
type NodeRunView = AutomationRunDetail['nodeRuns'][number];
type SchemaDetail = FromSchema<typeof AUTOMATION_RUN_DETAIL_SCHEMA>;
type SchemaNodeRun = SchemaDetail['nodeRuns'][number];
type SchemaEvent = SchemaDetail['events'][number];
type DetailEvent = AutomationRunDetail['events'][number];

same<Same<Automation, FromSchema<typeof AUTOMATION_SCHEMA>>>();
same<Same<AutomationSummary, FromSchema<typeof AUTOMATION_SUMMARY_SCHEMA>>>();
same<Same<AutomationRunSummary, FromSchema<typeof AUTOMATION_RUN_SUMMARY_SCHEMA>>>();
same<Same<TriggerResult, FromSchema<typeof TRIGGER_RESULT_SCHEMA>>>();
same<Same<{ valid: boolean; problems: Problem[] }, FromSchema<typeof VALIDATION_RESULT_SCHEMA>>>();
same<Same<Omit<AutomationRunDetail, JsonFields>, Omit<SchemaDetail, JsonFields>>>();
same<Same<Omit<NodeRunView, 'input' | 'output'>, Omit<SchemaNodeRun, 'input' | 'output'>>>();
same<Same<Omit<DetailEvent, 'data'>, Omit<SchemaEvent, 'data'>>>();
same<[AutomationRunDetail] extends [SchemaDetail] ? true : false>();
same<Same<keyof FromSchema<typeof AUTOMATION_EVENT_RESULT_SCHEMA>, 'event' | 'deliveredTo'>>();

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });

describe('the answer schemas describe the views the routes answer', () => {
  const now = new Date('2026-01-01T00:00:00.000Z');
  const fields = {
    id: 'a1',
    installationId: 7,
    name: 'Review',
    description: null,
    notes: null,
    status: 'active' as const,
    draftGraph: { nodes: [{ id: 'start', type: 'start' as const, position: { x: 0, y: 0 }, data: {} }], edges: [] },
    publishedVersionId: 'v1',
    createdAt: now,
    updatedAt: now,
  };
  const runSummary = { lastRunId: null, lastRunStatus: null, runningCount: 0, pendingCount: 0, failed24h: 0 };

  test('an automation (full) with a published version matches AUTOMATION_SCHEMA; a summary matches AUTOMATION_SUMMARY_SCHEMA', () => {
    const automation = toAutomation(fields, { id: 'v1', versionNumber: 1, graph: fields.draftGraph, createdAt: now }, runSummary);
    expect(ajv.validate(AUTOMATION_SCHEMA, automation)).toBe(true);
    expect(ajv.validate(AUTOMATION_SUMMARY_SCHEMA, toAutomationSummary(fields))).toBe(true);
  });

  test('a summary with a graph is not a summary (summaries never contain graphs)', () => {
    expect(ajv.validate(AUTOMATION_SUMMARY_SCHEMA, { ...toAutomationSummary(fields), draftGraph: fields.draftGraph })).toBe(false);
  });
});
