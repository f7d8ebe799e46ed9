import { hostname } from 'node:os'
import { describe, expect, it } from 'vitest'
import { ClusterOptionsError, instanceName, parseRedisUrl, redactRedisUrl } from './cluster-options'

describe('cluster options', () => {
  it('takes redis:// and rediss:// URLs with an optional database number', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379').port).toBe('6379')
    expect(parseRedisUrl('rediss://cache.internal:6380/2').pathname).toBe('/2')
  })

  it.each([
    ['http://127.0.0.1:6379', /redis:\/\/ or rediss:\/\//],
    ['127.0.0.1:6379', /redis:\/\/ or rediss:\/\/|redis:\/\/HOST:PORT/],
    ['redis://127.0.0.1:6379/cache', /database is a number/],
    ['not a url', /redis:\/\/HOST:PORT/],
  ])('refuses %s clearly', (value, message) => {
    expect(() => parseRedisUrl(value)).toThrow(ClusterOptionsError)
    expect(() => parseRedisUrl(value)).toThrow(message)
  })

  it('never repeats a password it was given, in errors or when printed', () => {
    expect(redactRedisUrl('redis://:s3cret@10.0.0.5:6379/0')).toBe('redis://***@10.0.0.5:6379/0')
    expect(redactRedisUrl('redis://user:s3cret@10.0.0.5:6379')).not.toContain('s3cret')
    expect(() => parseRedisUrl('ftp://:s3cret@host')).toThrow(/^(?!.*s3cret)/)
  })

  it('names the instance after the host and port unless given a name, and refuses names it could not use in channel names', () => {
    expect(instanceName(undefined, 7313)).toBe(`${hostname()}:7313`)
    expect(instanceName('gw-1', 7313)).toBe('gw-1')
    expect(() => instanceName('has space', 7313)).toThrow(ClusterOptionsError)
    expect(() => instanceName('', 7313)).toThrow(/1 to 100/)
  })
})
