export default async function globalTeardown() {
  await globalThis.__arsSharedSystemHost?.stop();
  await globalThis.__arsTestInfrastructure?.stop();
}
