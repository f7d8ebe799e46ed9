import type { GenerationEvent, GenerationEventSink } from './model-backend'

/**
 * Run a pull-style generator as a push-style generation: for backends whose events are naturally
 * a paced loop (the scripted model). Waits on the sink only when it asks to.
 */
export async function pushEach(events: AsyncIterable<GenerationEvent>, sink: GenerationEventSink): Promise<void> {
  for await (const event of events) {
    const pending = sink(event)
    if (pending !== undefined) await pending
  }
}
