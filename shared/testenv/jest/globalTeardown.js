export default async function globalTeardown() {
  await globalThis.__arsTestInfrastructure?.stop();
}
