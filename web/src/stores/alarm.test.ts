import { describe, expect, it } from 'vitest'
import { alarmSocketUrl, parseAlarmMessage } from '../services/alarmSocket'
import { alarmBadge, alarmDate, alarmTarget, useAlarmStore } from './alarm'

describe('alarm bell', () => {
  it('caps the badge at 99+', () => {
    expect(alarmBadge(0)).toBe('0')
    expect(alarmBadge(99)).toBe('99')
    expect(alarmBadge(100)).toBe('99+')
  })

  it('opens alarm data for station faults (type 1), smart warnings otherwise', () => {
    expect(alarmTarget({ id: '7', type: 1 })).toBe('/intelligentOperation/alarmData?id=7')
    expect(alarmTarget({ id: '8', type: 2 })).toBe('/intelligentOperation/intelligentWarning?id=8')
    expect(alarmTarget({ id: '9', type: 0 })).toBe('/intelligentOperation/intelligentWarning?id=9')
  })

  it('shows ISO dates with a space', () => {
    expect(alarmDate('2026-11-22T05:00:01')).toBe('2026-11-22 05:00:01')
  })

  it('each message replaces the count and the list', () => {
    const alarm = {
      id: '1',
      stationName: 'S',
      inverter: 'I',
      warningName: 'W',
      date: '2026-01-01T00:00:00',
      type: 1,
    }
    useAlarmStore.getState().replace(2, [alarm, { ...alarm, id: '2' }])
    useAlarmStore.getState().replace(1, [alarm])
    expect(useAlarmStore.getState().count).toBe(1)
    expect(useAlarmStore.getState().list).toHaveLength(1)
  })
})

describe('alarm socket', () => {
  it('reads {data, count} messages and ignores anything else', () => {
    expect(parseAlarmMessage('{"data":[],"count":0}')).toEqual({
      data: [],
      count: 0,
      work: [],
      workCount: 0,
    })
    expect(parseAlarmMessage('{"data":[{"id":"1"}]}')?.count).toBe(1)
    expect(parseAlarmMessage('pong')).toBeNull()
    expect(parseAlarmMessage('{"count":3}')).toBeNull()
  })

  it('builds ws:// or wss:// on the page host with the user id and token', () => {
    const http = { protocol: 'http:', host: 'example.com:8080' } as Location
    const https = { protocol: 'https:', host: 'example.com' } as Location
    expect(alarmSocketUrl('42', 'a.b', http)).toBe('ws://example.com:8080/ws/42?token=a.b')
    expect(alarmSocketUrl('42', 'a b', https)).toBe('wss://example.com/ws/42?token=a%20b')
    // The console's language travels with it (the handshake's Accept-Language is the browser's).
    expect(alarmSocketUrl('42', 'a.b', http, 'en')).toBe(
      'ws://example.com:8080/ws/42?token=a.b&lang=en',
    )
  })
})
