import { startTestGateway, type TestGateway } from '../integration/harness'
import { startFakeModelServer, type FakeBehavior, type FakeModelServer } from './fake-model-server'

/** A fake model server and a real `mortar serve --upstream <it>` in front of it. */
export interface ForwardingGateway {
  fake: FakeModelServer
  gw: TestGateway
  /** Stops the gateway, then the server: the server sees the gateway's connections end. */
  close(): Promise<void>
}

/**
 * What a test of forwarding starts with: the fake model server (`behavior` is its first one), then
 * a gateway forwarding to it with the extra `args` (`--upstream-timeout 1`…). Nothing is left
 * running when the gateway cannot start.
 */
export async function startForwardingGateway(behavior: Partial<FakeBehavior> = {}, args: readonly string[] = []): Promise<ForwardingGateway> {
  const fake = await startFakeModelServer(behavior)
  let gw: TestGateway
  try {
    gw = await startTestGateway(['--upstream', fake.url, ...args])
  } catch (error) {
    await fake.close()
    throw error
  }
  return {
    fake,
    gw,
    close: async () => {
      await gw.close()
      await fake.close()
    },
  }
}
