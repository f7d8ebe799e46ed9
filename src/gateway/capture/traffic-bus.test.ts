import type { ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import type { TrafficEvent } from '../../shared/api/traffic'
import type { ClusterFanout } from '../cluster/cluster-event-relay'
import { TrafficBus } from './traffic-bus'

/** What a subscriber's response was sent: its `data:` lines. */
function fakeResponse(): { res: ServerResponse; frames: string[] } {
  const frames: string[] = []
  const res = { destroyed: false, writableEnded: false, writableLength: 0, write: (frame: string) => frames.push(frame), end: () => undefined }
  return { res: res as unknown as ServerResponse, frames }
}

/** A cluster that records what it was asked to forward and how many subscribers it was told of. */
function fakeFanout(wantedElsewhere = false) {
  const forwarded: Array<[TrafficEvent, string | null | undefined]> = []
  const counts: number[] = []
  const fanout: ClusterFanout<TrafficEvent> & { wantedElsewhere: boolean } = {
    wantedElsewhere,
    forward: (event, org) => forwarded.push([event, org]),
    localSubscribers: (count) => counts.push(count),
  }
  return { fanout, forwarded, counts }
}

const cleared: TrafficEvent = { type: 'exchanges.cleared' }

describe('TrafficBus in a cluster', () => {
  it('is wanted while someone listens here or elsewhere, and only then', () => {
    const bus = new TrafficBus()
    expect(bus.wanted).toBe(false)
    const { fanout } = fakeFanout()
    bus.joinCluster(fanout)
    expect(bus.wanted).toBe(false)
    fanout.wantedElsewhere = true
    expect(bus.wanted).toBe(true)
    fanout.wantedElsewhere = false
    const unsubscribe = bus.subscribe({ org: 'a', keyId: 'k1' }, { org: 'a', unattributed: false }, fakeResponse().res)
    expect(bus.wanted).toBe(true)
    unsubscribe()
    expect(bus.wanted).toBe(false)
  })

  it('tells the cluster how many subscribe here, and forwards its own events with their org', () => {
    const bus = new TrafficBus()
    const { fanout, forwarded, counts } = fakeFanout(true)
    bus.joinCluster(fanout)
    const unsubscribe = bus.subscribe({ org: 'a', keyId: 'k1' }, { org: 'a', unattributed: false }, fakeResponse().res)
    unsubscribe()
    expect(counts).toEqual([0, 1, 0])
    bus.publish(cleared, 'a')
    bus.publish(cleared, null)
    expect(forwarded).toEqual([
      [cleared, 'a'],
      [cleared, null],
    ])
  })

  it("delivers another instance's events with the same org scoping as its own, and forwards none of them", () => {
    const bus = new TrafficBus()
    const { fanout, forwarded } = fakeFanout(true)
    bus.joinCluster(fanout)
    const member = fakeResponse()
    const owner = fakeResponse()
    const stranger = fakeResponse()
    bus.subscribe({ org: 'a', keyId: 'k1' }, { org: 'a', unattributed: false }, member.res)
    bus.subscribe({ org: 'a', keyId: 'k2' }, { org: 'a', unattributed: true }, owner.res)
    bus.subscribe({ org: 'b', keyId: 'k3' }, { org: 'b', unattributed: false }, stranger.res)
    bus.deliver(cleared, 'a')
    bus.deliver(cleared, null)
    expect([member.frames.length, owner.frames.length, stranger.frames.length]).toEqual([1, 2, 0])
    bus.deliver(cleared, undefined)
    expect([member.frames.length, owner.frames.length, stranger.frames.length]).toEqual([2, 3, 1])
    expect(forwarded).toEqual([])
  })
})
