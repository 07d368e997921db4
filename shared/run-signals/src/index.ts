export { createRunSignalPublisher, createRunSignalSubscriber, runChannel } from './runSignals.js';
export type { RunSignalPublisher, RunSignalSubscriber, RunWatch } from './runSignals.js';
