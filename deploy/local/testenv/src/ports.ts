// The one way tests get a port for a server they start themselves: reserved for the test process
// until it exits, outside the kernel's ephemeral range, never one another suite or local stack on this
// machine holds (see deploy/local/stack/src/ports.ts). A port a moment ago free (bind, close, hand
// over) is not enough: another suite's server, or an outgoing connection's source port, takes it.
export { freePort, reservePort } from '@ars/stack';
export type { PortReservation } from '@ars/stack';
