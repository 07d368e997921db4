import { randomUUID } from 'node:crypto';
import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import { AUTOMATION_EVENT_BODY_SCHEMA, type AutomationEventBody } from './bodies.js';
import type { AutomationsDeps } from './deps.js';

const parseEvent = validateBody<AutomationEventBody>(AUTOMATION_EVENT_BODY_SCHEMA);

/**
 * `POST /internal/users/:userId/automations/events` (addition) → 202 `{event: {id, name, data,
 * receivedAt}, deliveredTo}`: stored first, then delivered to every automation run of the user live
 * now (an await_event that reaches it later still finds it in its run's inbox). `deliveredTo` counts
 * those runs. A crash before the delivery ends leaves the event pending: the sweeper delivers it again.
 */
export function sendAutomationEvent(router: Router, deps: AutomationsDeps): void {
  router.post('/users/:userId/automations/events', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const body = parseEvent(requestBody(ctx));
    const event = { _id: randomUUID(), userId, name: body.name, data: body.data ?? null, receivedAt: new Date(), pending: true };
    await deps.events.insert(event);
    const deliveredTo = await deps.driver.deliverEvent(event);
    deps.logger.info({ event_id: event._id, event_name: event.name, delivered_to: deliveredTo }, 'automation event received');
    ok(ctx, { event: { id: event._id, name: event.name, data: event.data, receivedAt: event.receivedAt.toISOString() }, deliveredTo }, 202);
  });
}
