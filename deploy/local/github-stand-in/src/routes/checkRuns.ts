// Check runs: `POST /repos/{o}/{r}/check-runs`, `PATCH …/check-runs/{id}` (annotations appended) and
// `GET …/commits/{ref}/check-runs`, refusing what GitHub refuses (422) before changing anything.
import { invalid, notFound, type Answer } from '../httpAnswer.js';
import { checkRunJson, iso } from '../json.js';
import type { StandInAnnotation, StandInCheckRun } from '../records.js';
import { page, reachableRepository, readBody, type Route, type RouteContext } from '../route.js';

const MAX_ANNOTATIONS = 50;
const MAX_TEXT = 65_535;

function applyCheckRunOutput(run: StandInCheckRun, output: unknown): void {
  if (output === undefined) return;
  const o = output as { title?: unknown; summary?: unknown; text?: unknown; annotations?: unknown };
  if (typeof o.title !== 'string' || typeof o.summary !== 'string') throw invalid('Invalid request.\n\n"title", "summary" weren\'t supplied.');
  if (o.summary.length > MAX_TEXT)
    throw invalid('Invalid request.\n\nOnly 65535 characters are allowed; 65536 were supplied.', [{ resource: 'CheckRun', field: 'summary', code: 'custom' }]);
  if (typeof o.text === 'string' && o.text.length > MAX_TEXT)
    throw invalid('Invalid request.\n\nOnly 65535 characters are allowed.', [{ resource: 'CheckRun', field: 'text', code: 'custom' }]);
  const annotations = Array.isArray(o.annotations) ? (o.annotations as StandInAnnotation[]) : [];
  if (annotations.length > MAX_ANNOTATIONS)
    throw invalid('Invalid request.\n\nOnly 50 annotations are allowed per request.', [{ resource: 'CheckRun', field: 'annotations', code: 'custom' }]);
  for (const a of annotations) {
    if (
      typeof a.path !== 'string' ||
      typeof a.start_line !== 'number' ||
      typeof a.end_line !== 'number' ||
      !['notice', 'warning', 'failure'].includes(a.annotation_level) ||
      typeof a.message !== 'string'
    ) {
      throw invalid('Invalid request.\n\nAn annotation is missing path, start_line, end_line, annotation_level or message.');
    }
  }
  run.output = { title: o.title, summary: o.summary, text: typeof o.text === 'string' ? o.text : run.output.text };
  run.annotations.push(...annotations);
  if (annotations.length > 0) run.annotationBatches.push(annotations.length);
}

function applyStatus(run: StandInCheckRun, body: Record<string, unknown>): void {
  if (body.status !== undefined) {
    if (!['queued', 'in_progress', 'completed'].includes(String(body.status))) throw invalid('Invalid request.\n\nstatus is not a member of the enum.');
    run.status = body.status as StandInCheckRun['status'];
  }
  if (body.conclusion !== undefined) {
    if (!['success', 'failure', 'neutral', 'cancelled', 'skipped', 'timed_out', 'action_required'].includes(String(body.conclusion)))
      throw invalid('Invalid request.\n\nconclusion is not a member of the enum.');
    run.conclusion = String(body.conclusion);
    run.status = 'completed';
  }
  if (run.status === 'completed' && run.conclusion === null) throw invalid('Invalid request.\n\n"conclusion" wasn\'t supplied.');
  if (run.status === 'completed' && run.completed_at === null) run.completed_at = iso();
}

/** A check run on a SHA the repository knows (422 for another). */
async function createCheckRun(params: string[], context: RouteContext): Promise<Answer> {
  const hosted = reachableRepository(params, context);
  const body = await readBody(context.req);
  if (typeof body.name !== 'string' || typeof body.head_sha !== 'string') throw invalid('Invalid request.\n\n"name", "head_sha" weren\'t supplied.');
  if (!hosted.commits.has(body.head_sha)) throw invalid('No commit found for SHA: ' + body.head_sha);
  const { state } = context;
  const run: StandInCheckRun = {
    id: state.nextId(),
    name: body.name,
    head_sha: body.head_sha,
    external_id: typeof body.external_id === 'string' ? body.external_id : null,
    status: 'queued',
    conclusion: null,
    details_url: typeof body.details_url === 'string' ? body.details_url : null,
    started_at: iso(),
    completed_at: null,
    output: { title: null, summary: null, text: null },
    annotations: [],
    annotationBatches: [],
  };
  applyStatus(run, body);
  applyCheckRunOutput(run, body.output);
  hosted.checkRuns.push(run);
  return { status: 201, body: checkRunJson(state.baseUrl, hosted, run, state.botLogin) };
}

async function updateCheckRun(params: string[], context: RouteContext): Promise<Answer> {
  const hosted = reachableRepository(params, context);
  const run = hosted.checkRuns.find((r) => r.id === Number(params[3]));
  if (!run) throw notFound();
  const body = await readBody(context.req);
  // Validate everything before changing anything: a refused request leaves the run as it was.
  const draft: StandInCheckRun = { ...run, output: { ...run.output }, annotations: [...run.annotations], annotationBatches: [...run.annotationBatches] };
  applyStatus(draft, body);
  applyCheckRunOutput(draft, body.output);
  Object.assign(run, draft);
  return { status: 200, body: checkRunJson(context.state.baseUrl, hosted, run, context.state.botLogin) };
}

/** The check runs of a SHA or a head branch, newest first; `filter=latest` (the default) keeps the newest per name. */
async function listCheckRunsForRef(params: string[], context: RouteContext): Promise<Answer> {
  const hosted = reachableRepository(params, context);
  const { url, state } = context;
  const ref = decodeURIComponent(params[3] ?? '');
  const sha = hosted.pulls.find((p) => p.head.ref === ref)?.head.sha ?? ref;
  const name = url.searchParams.get('check_name');
  let runs = hosted.checkRuns.filter((r) => r.head_sha === sha && (name === null || r.name === name));
  if ((url.searchParams.get('filter') ?? 'latest') === 'latest') {
    const latest = new Map<string, StandInCheckRun>();
    for (const r of runs) if ((latest.get(r.name)?.id ?? 0) < r.id) latest.set(r.name, r);
    runs = [...latest.values()];
  }
  runs = [...runs].sort((a, b) => b.id - a.id);
  const { items, headers } = page(context, runs);
  return { status: 200, body: { total_count: runs.length, check_runs: items.map((r) => checkRunJson(state.baseUrl, hosted, r, state.botLogin)) }, headers };
}

export const checkRunRoutes: Route[] = [
  ['POST', /^\/repos\/([^/]+)\/([^/]+)\/check-runs$/, createCheckRun],
  ['PATCH', /^\/repos\/([^/]+)\/([^/]+)\/check-runs\/(\d+)$/, updateCheckRun],
  ['GET', /^\/repos\/([^/]+)\/([^/]+)\/commits\/([^/]+)\/check-runs$/, listCheckRunsForRef],
];
