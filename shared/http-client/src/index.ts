export { createHttpClient } from './client.js';
export type { HttpClient, HttpClientOptions, HttpMethod, QueryValue, RequestOptions } from './client.js';
export { requireInternalCaller, CALLER_SERVICE_HEADER, INTERNAL_TOKEN_HEADER, REQUEST_ID_HEADER } from '@ars/http-app';
export { waitingOutPeerOutage } from './peerOutage.js';
export type { PeerOutageOptions } from './peerOutage.js';
