import { describe, expect, it } from 'vitest'
import { matchStations } from './logic'

const s = (id: string, name: string) => ({ id, name, installationStatus: '1', state: '1' })

describe('archive station search', () => {
  it('matches names case-insensitively and lists all for an empty search', () => {
    const all = [s('1', 'Sunny Roof'), s('2', '阳光屋顶'), s('3', 'Farm')]
    expect(matchStations(all, ' sunny ').map((x) => x.id)).toEqual(['1'])
    expect(matchStations(all, '阳光').map((x) => x.id)).toEqual(['2'])
    expect(matchStations(all, '')).toHaveLength(3)
    expect(matchStations(all, 'none')).toEqual([])
  })
})
